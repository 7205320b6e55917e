// What a tools/call on the Hub's /mcp endpoint reads, through a store that counts (and, for the
// races, serves the tool listing from before a change): the system is read by the tool listing
// and by invoke's own checks, never a third time to open the call's run (on SQLite and, in the
// hub-postgres project, PostgreSQL). A revoke or a retire landing between the listing and the call
// is still refused with its code, nothing stored and nothing sent.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AuthorizationRecord, HubStore, RunRecord, SystemRecord } from '../../../src-hub/store/types.js';
import { newInvocationId, opRequests, startEnv, taskBody, type HubEnv } from '../helpers.js';
import { openStoreFor } from '../store-mode.js';

const KEY = 'dev.bailingdesk/idempotency_key';
const TASK = 'dev.bailingdesk/task_id';
const COUNTED = ['getSystem', 'listSystems', 'getAuthorization', 'isGranted', 'invokeReads'] as const;
type Counted = (typeof COUNTED)[number];

let env: HubEnv;
let client: Client;
const noReads = () => Object.fromEntries(COUNTED.map((k) => [k, 0])) as Record<Counted, number>;
let reads = noReads();
/** A listing from before a change, served instead of the store's (the change raced the call). */
const stale: { systems: SystemRecord[] | null; authorizations: AuthorizationRecord[] | null } = {
  systems: null,
  authorizations: null,
};
/** The runs the calls opened and ended: a refused call's run ends with it too. */
const runs = { opened: [] as string[], ended: [] as string[] };

function counting(store: HubStore): HubStore {
  return new Proxy(store, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (prop === 'listSystems' && stale.systems) {
        const systems = stale.systems;
        return () => (reads.listSystems++, Promise.resolve(systems));
      }
      if (prop === 'listAuthorizations' && stale.authorizations) {
        const auths = stale.authorizations;
        return () => Promise.resolve(auths);
      }
      if (prop === 'createRun' && typeof value === 'function')
        return (r: RunRecord) => (
          runs.opened.push(r.run_id),
          (value as HubStore['createRun']).call(target, r)
        );
      if (prop === 'endRun' && typeof value === 'function')
        return (id: string, at: string) => (
          runs.ended.push(id),
          (value as HubStore['endRun']).call(target, id, at)
        );
      if (typeof value === 'function' && (COUNTED as readonly PropertyKey[]).includes(prop)) {
        return (...args: unknown[]) => {
          reads[prop as Counted]++;
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      return value;
    },
  });
}

beforeEach(async () => {
  env = await startEnv();
  await env.hub.close();
  await env.restart({ store: counting(await openStoreFor(env.dataDir)) });
  client = new Client({ name: 'endpoint-reads-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${env.hub.url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${env.desk}` } },
    }),
  );
});
afterEach(async () => {
  stale.systems = null;
  stale.authorizations = null;
  await client.close();
  await env.close();
});

/** One tools/call and the store reads it made. */
async function counted(name: string, args: Record<string, unknown>, meta: Record<string, unknown>) {
  reads = noReads();
  runs.opened = [];
  runs.ended = [];
  const result = (await client.callTool({ name, arguments: args, _meta: meta })) as CallToolResult & {
    structuredContent: Record<string, unknown>;
  };
  return { result, reads: { ...reads } };
}

describe('/mcp tools/call reads', () => {
  it('the system twice — the tool listing and invoke’s checks — never a third time to open the run', async () => {
    const task = await env.agent(
      'POST',
      '/agent/v1/tasks',
      taskBody('reads', { 'auth-inventory': ['get_stock'] }),
    );
    expect(task.status, task.text).toBe(201);
    const once = { getSystem: 0, listSystems: 1, getAuthorization: 0, isGranted: 0, invokeReads: 1 };
    const read = await counted('get_stock', { sku: 'SKU-A-0007' }, { [KEY]: newInvocationId() });
    expect(read.result.structuredContent.state, JSON.stringify(read.result)).toBe('succeeded');
    expect(read.reads).toEqual(once);
    const inTask = await counted(
      'get_stock',
      { sku: 'SKU-A-0013' },
      { [KEY]: newInvocationId(), [TASK]: task.body.task_id },
    );
    expect(inTask.result.structuredContent.state).toBe('succeeded');
    expect(inTask.reads).toEqual(once);
    const write = await counted(
      'auth-shop-a.update_product_content',
      { product_id: 42, description: 'counted' },
      { [KEY]: newInvocationId() },
    );
    expect(write.result.structuredContent.state).toBe('succeeded');
    expect(write.reads).toEqual(once);
  });

  it('a revoke that lands after the tool was listed: refused authorization_revoked, nothing stored or sent', async () => {
    stale.authorizations = await env.hub.store.listAuthorizations('desk');
    const revoked = await env.admin('POST', '/admin/v1/authorizations/auth-inventory/revoke');
    expect(revoked.status, revoked.text).toBe(200);
    const key = newInvocationId();
    const { result } = await counted('get_stock', { sku: 'SKU-A-0007' }, { [KEY]: key });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({
      state: 'refused',
      reason_code: 'authorization_revoked',
    });
    expect((await env.agent('GET', `/agent/v1/invocations/${key}`)).status).toBe(404);
    expect(opRequests(env.demo.inventory)).toBe(0);
    expect(runs.opened).toHaveLength(1);
    expect(runs.ended).toEqual(runs.opened);
  });

  it('a retire that lands after the tool was listed: refused system_retired, nothing stored or sent', async () => {
    stale.systems = await env.hub.store.listSystems();
    const retired = await env.admin('POST', '/admin/v1/systems/inventory/retire');
    expect(retired.status, retired.text).toBe(200);
    const key = newInvocationId();
    const { result } = await counted('get_stock', { sku: 'SKU-A-0007' }, { [KEY]: key });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toMatchObject({ state: 'refused', reason_code: 'system_retired' });
    expect((await env.agent('GET', `/agent/v1/invocations/${key}`)).status).toBe(404);
    expect(opRequests(env.demo.inventory)).toBe(0);
    expect(runs.opened).toHaveLength(1);
    expect(runs.ended).toEqual(runs.opened);
  });
});
