/**
 * A scope check in flight must not undo a block learned meanwhile: the Hub answered "all members
 * active" just before one was revoked, the app fed the revocation (authorization.changed) while
 * that answer was still on its way, and the older answer arrived last. The session stays blocked
 * until the next explicit check. Real Hub and HTTP; a small proxy holds the Hub's answer to the
 * scope check back (the request reaches the Hub at once, only the response waits).
 */
import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { createDeskRuntimeFromDataDir } from '../../src-main/runtime/from-data-dir.js';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { MODEL_KEY, newDataDir } from './fixtures/runtime.js';

interface AnswerGate {
  url: string;
  /** While on, answers to GET /agent/v1/authorizations are held until release(). */
  hold(on: boolean): void;
  held(): number;
  release(): void;
  close(): Promise<void>;
}

async function startAnswerGate(target: string): Promise<AnswerGate> {
  const t = new URL(target);
  let holding = false;
  const waiting: (() => void)[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0];
    const up = httpRequest(
      {
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: t.host },
      },
      (r) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => {
          const send = () => {
            res.writeHead(r.statusCode ?? 502, r.headers);
            res.end(Buffer.concat(chunks));
          };
          if (holding && req.method === 'GET' && path === '/agent/v1/authorizations') waiting.push(send);
          else send();
        });
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold: (on) => {
      holding = on;
    },
    held: () => waiting.length,
    release: () => {
      for (const send of waiting.splice(0)) send();
    },
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

let env: RuntimeTestEnv;
let gate: AnswerGate;
const runtimes: DeskRuntime[] = [];
beforeAll(async () => {
  env = await startRuntimeTestEnv();
  gate = await startAnswerGate(env.proxy.url);
}, 30_000);
afterAll(async () => {
  gate?.release();
  for (const r of runtimes) await r.close();
  await gate?.close();
  await env?.close();
});

async function runtimeOn(dataDir: string): Promise<DeskRuntime> {
  const { runtime } = await createDeskRuntimeFromDataDir({
    dataDir,
    hubUrl: gate.url,
    hubToken: env.clientToken,
    hubId: env.hub.hubId,
    clientId: env.clientId,
    modelSettings: { get: async () => ({ baseUrl: env.model.url, model: 'scripted', apiKey: MODEL_KEY }) },
    secrets: () => [MODEL_KEY],
  });
  runtimes.push(runtime);
  return runtime;
}

describe('a scope check in flight and a newer block', () => {
  it('the older "all active" answer arriving last does not reopen a scope blocked meanwhile; the next explicit open re-checks', async () => {
    const dataDir = newDataDir();
    const first = await runtimeOn(dataDir);
    const s = await first.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
    await first.close();
    const runtime = await runtimeOn(dataDir); // the session is not_opened here

    gate.hold(true);
    env.proxy.reset();
    const opening = runtime.openSession(s.sessionId);
    // The Hub has answered (everything active); the answer waits at the gate.
    const end = Date.now() + 10_000;
    while (gate.held() === 0) {
      if (Date.now() > end) throw new Error('the scope check never reached the Hub');
      await new Promise((r) => setTimeout(r, 10));
    }
    await env.admin.revokeAuthorization(AUTH.inventory);
    const view = (
      await createHubClient({ baseUrl: env.hub.url, token: env.clientToken }).listAuthorizations()
    ).find((a) => a.authorization_ref === AUTH.inventory);
    expect(view?.state).toBe('revoked');
    await runtime.authorizationChanged(view!);
    gate.hold(false);
    gate.release();

    const opened = await opening;
    expect(opened.session).toMatchObject({
      availability: 'blocked',
      availabilityReason: 'authorization_revoked',
      availabilityRef: AUTH.inventory,
    });
    expect(env.proxy.requests().filter((x) => x === 'GET /agent/v1/authorizations')).toHaveLength(1);

    // An explicit open asks again and now hears the revocation from the Hub itself.
    const again = await runtime.openSession(s.sessionId);
    expect(again.session).toMatchObject({
      availability: 'blocked',
      availabilityReason: 'authorization_revoked',
      availabilityRef: AUTH.inventory,
    });
    expect(env.proxy.requests().filter((x) => x === 'GET /agent/v1/authorizations')).toHaveLength(2);
  });
});
