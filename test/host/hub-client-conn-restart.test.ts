// The first governed write after a Hub restart must not come back "outcome unknown" because it was
// sent on a keep-alive connection the old Hub (or a balancer in front of it) had already given up.
// Real Hub on a temp data dir, restarted on the SAME port: cleanly (close()), and as a real child
// process that is SIGKILLed; each directly and through a TCP balancer that keeps the client's
// connection open while its upstream goes away. The demo shop's ledger must show exactly one
// business write per governed write.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { createHub, type Hub } from '../../src-hub/index.js';
import {
  createHubClient,
  isAuthoritativeNotFound,
  isOutcomeUnknown,
  type HubClient,
} from '../../src-main/hub-client/index.js';
import { spawnHub, type HubChild } from '../hub/child.js';
import { demoConfig, token } from '../hub/helpers.js';
import { countRequests, startConnProxy, type ConnProxy } from './hub-client-conn-proxy.js';
import { caughtHubError } from './helpers/net-faults.js';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

interface Runner {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** The Hub in this process: stop = close() (its connections are closed cleanly). */
async function inProcessHub(dataDir: string, config: Parameters<typeof spawnHub>[1]): Promise<Runner> {
  let hub: Hub = await createHub({ dataDir, config });
  let running = true;
  cleanups.push(() => (running ? hub.close() : undefined));
  return {
    port: hub.port,
    async stop() {
      await hub.close();
      running = false;
    },
    async start() {
      hub = await createHub({ dataDir, config, port: hub.port });
      running = true;
    },
  };
}

/** The Hub as a real child process: stop = SIGKILL. */
async function childHub(dataDir: string, config: Parameters<typeof spawnHub>[1]): Promise<Runner> {
  let child: HubChild = await spawnHub(dataDir, config);
  cleanups.push(() => child.kill('SIGKILL'));
  const port = Number(new URL(child.url).port);
  return {
    port,
    async stop() {
      await child.kill('SIGKILL');
    },
    async start() {
      child = await spawnHub(dataDir, config, ['--port', String(port)]);
    },
  };
}

/** Business writes in the shop's ledger (its /__demo/ledger route) that set this description. */
async function ledgerEntries(demo: DemoSystems, description: string): Promise<number> {
  const res = await fetch(`${demo.shopA.url}/__demo/ledger`);
  const body = (await res.json()) as {
    ledger: Array<{ changes: Record<string, { after: unknown }> }>;
  };
  return body.ledger.filter((e) => e.changes['description']?.after === description).length;
}

const cases = [
  { name: 'clean restart (close())', child: false, balancer: false },
  { name: 'SIGKILLed Hub child process', child: true, balancer: false },
  { name: 'clean restart behind a TCP balancer', child: false, balancer: true },
  { name: 'SIGKILLed Hub child behind a TCP balancer', child: true, balancer: true },
];

describe('the first governed write after a Hub restart', () => {
  it.each(cases)(
    '$name: succeeds, and the shop ledger saw exactly one write',
    async ({ child, balancer }) => {
      const demo = await startDemoSystems();
      cleanups.push(() => demo.close());
      const dataDir = mkdtempSync(join(tmpdir(), 'hub-client-conn-'));
      cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
      const desk = token('desk');
      const config = demoConfig(demo, [{ client_id: 'desk', token: desk }]);
      const hub = child ? await childHub(dataDir, config) : await inProcessHub(dataDir, config);
      let proxy: ConnProxy | null = null;
      if (balancer) {
        proxy = await startConnProxy(() => hub.port);
        cleanups.push(() => proxy?.close());
      }
      const baseUrl = proxy ? proxy.url : `http://127.0.0.1:${hub.port}`;
      const client = createHubClient({ baseUrl, token: desk });
      // Every request on the built-in fetch's keep-alive pool: the transport this client used before.
      const pooledOnly: HubClient = createHubClient({
        baseUrl,
        token: desk,
        fetch: (i, init) => fetch(i, init),
      });

      const found = await client.searchTools({
        query: 'update_product_content',
        authorization_refs: ['auth-shop-a'],
      });
      const decl = found.declarations.find((d) => d.tool === 'update_product_content')!;
      const run = await client.createRun({
        agent_session_id: 's-conn',
        turn_id: 't-conn',
        authorization_ref: 'auth-shop-a',
      });
      const write = (c: HubClient, invocationId: string, description: string) =>
        c.invoke({
          invocation_id: invocationId,
          run_id: run.run_id,
          authorization_ref: 'auth-shop-a',
          tool: 'update_product_content',
          declaration_revision: decl.declaration_revision,
          arguments: { product_id: 42, description },
          host_call_id: `hc-${invocationId}`,
        });

      const before = `before-${randomUUID()}`;
      expect((await write(client, `inv_${randomUUID()}`, before)).state).toBe('succeeded');
      // Reads leave an idle keep-alive connection in the pool.
      await client.listAuthorizations();
      await pooledOnly.listAuthorizations();

      await hub.stop();
      await hub.start();

      const afterId = `inv_${randomUUID()}`;
      const after = `after-${randomUUID()}`;
      const receipt = await write(client, afterId, after);
      expect(receipt.state).toBe('succeeded');
      expect(await ledgerEntries(demo, after)).toBe(1);
      expect(await ledgerEntries(demo, before)).toBe(1);

      if (proxy) {
        // The fault is real here: the pool still holds the connection the balancer kept open, and a
        // write sent on it is reset, never reaches the Hub, and leaves the client unable to know
        // that ("needs checking"). Tried only after the real write: any request on the pool before it
        // would have used that connection up.
        const resetsBefore = proxy.resets();
        const controlId = `inv_${randomUUID()}`;
        const control = `control-${randomUUID()}`;
        const err = await caughtHubError(write(pooledOnly, controlId, control));
        expect(err.kind).toBe('network');
        expect(isOutcomeUnknown(err)).toBe(true);
        expect(proxy.resets()).toBeGreaterThan(resetsBefore);
        expect(isAuthoritativeNotFound(await caughtHubError(client.getInvocation(controlId)))).toBe(true);
        expect(await ledgerEntries(demo, control)).toBe(0);
      }
      expect((await client.getInvocation(afterId)).state).toBe('succeeded');
      if (proxy) expect(countRequests(proxy.sent(), 'POST', '/agent/v1/invocations')).toBe(3); // before, after, control
    },
    60_000,
  );
});
