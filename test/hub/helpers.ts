/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON; tests check them with the zod wire schemas */
/** Test environment for the Hub: real demo business systems, a real Hub (in-process) on a temp SQLite dir. */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_CONFIG, startDemoSystems, type DemoSystems } from '../../demo/index.js';
import type { Declaration } from '../../src-shared/hub-api.js';
import { createHub, type CreateHubOptions, type Hub, type HubConfig } from '../../src-hub/index.js';
import { seedStoredEvents, sqlRows, storeFor } from './store-mode.js';

export interface HttpResult<T = any> {
  status: number;
  body: T;
  text: string;
  headers: Headers;
}

export async function http<T = any>(
  base: string,
  method: string,
  path: string,
  opts: { token?: string; body?: unknown; raw?: string; headers?: Record<string, string> } = {},
): Promise<HttpResult<T>> {
  const headers: Record<string, string> = { ...opts.headers };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let body: string | undefined;
  if (opts.raw !== undefined) {
    body = opts.raw;
    headers['content-type'] ??= 'application/json';
  } else if (opts.body !== undefined) {
    body = JSON.stringify(opts.body);
    headers['content-type'] = 'application/json';
  }
  const res = await fetch(base + path, { method, headers, body });
  const text = await res.text();
  let parsed: unknown = text;
  try {
    parsed = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body: parsed as T, text, headers: res.headers };
}

export const token = (clientId: string) => `bdc_${clientId}.${randomBytes(24).toString('base64url')}`;

export function demoConfig(
  demo: DemoSystems,
  clients: Array<{ client_id: string; token: string }>,
): HubConfig {
  const handles = { 'shop-a': demo.shopA, 'shop-b': demo.shopB, inventory: demo.inventory } as const;
  return {
    systems: DEMO_CONFIG.systems.map((s) => ({
      system_id: s.system_id,
      name: s.name,
      base_url: handles[s.system_id as keyof typeof handles].url,
      signing_secret: handles[s.system_id as keyof typeof handles].secret,
    })),
    clients: clients.map((c) => ({ client_id: c.client_id, name: c.client_id, token: c.token })),
    authorizations: DEMO_CONFIG.systems.map((s) => ({
      authorization_ref: s.authorization_ref,
      system_id: s.system_id,
      account: s.account,
      on_behalf_of: DEMO_CONFIG.on_behalf_of,
      grant_to: clients.map((c) => c.client_id),
    })),
  };
}

export interface HubEnv {
  demo: DemoSystems;
  hub: Hub;
  dataDir: string;
  adminToken: string;
  desk: string; // client token of client "desk"
  other: string; // client token of client "other"
  config: HubConfig;
  agent<T = any>(method: string, path: string, body?: unknown, tok?: string): Promise<HttpResult<T>>;
  admin<T = any>(method: string, path: string, body?: unknown): Promise<HttpResult<T>>;
  declaration(authRef: string, tool: string, tok?: string): Promise<Declaration>;
  /** Opens a run; each run is its own agent session unless `sessionId` is given (task enrollment is per session). */
  run(authRef: string, tok?: string, sessionId?: string): Promise<string>;
  invoke(input: {
    authRef: string;
    tool: string;
    args: Record<string, unknown>;
    runId?: string;
    id?: string;
    taskId?: string;
    tok?: string;
    sessionId?: string;
  }): Promise<HttpResult>;
  /** Reads the Hub's store (SQLite file or PostgreSQL database) for assertions about rows no route exposes. */
  sql<T = unknown>(query: string, ...params: unknown[]): T[];
  restart(extra?: Partial<CreateHubOptions>): Promise<void>;
  close(): Promise<void>;
}

export const newInvocationId = () => `inv_${randomUUID()}`;

/** A `POST /agent/v1/tasks` body: authorization ref -> its tools, a write budget and in-flight limit of 1. */
export const taskBody = (title: string, members: Record<string, string[]>) => ({
  title,
  authorizations: Object.entries(members).map(([authorization_ref, tools]) => ({ authorization_ref, tools })),
  write_budget: 1,
  in_flight_limit: 1,
});

export async function startEnv(extra: Partial<CreateHubOptions> = {}): Promise<HubEnv> {
  const demo = await startDemoSystems();
  const dataDir = mkdtempSync(join(tmpdir(), 'hub-test-'));
  const adminToken = `admin-${randomBytes(16).toString('hex')}`;
  const desk = token('desk');
  const other = token('other');
  const config = demoConfig(demo, [
    { client_id: 'desk', token: desk },
    { client_id: 'other', token: other },
  ]);
  const env: HubEnv = {
    demo,
    hub: await createHub({ ...(await storeFor(dataDir)), adminToken, config, ...extra }),
    dataDir,
    adminToken,
    desk,
    other,
    config,
    agent: (method, path, body, tok) => http(env.hub.url, method, path, { token: tok ?? desk, body }),
    admin: (method, path, body) => http(env.hub.url, method, path, { token: adminToken, body }),
    async declaration(authRef, tool, tok) {
      const r = await env.agent(
        'POST',
        '/agent/v1/tools/search',
        { query: tool, authorization_refs: [authRef], limit: 50 },
        tok,
      );
      const d = (r.body.declarations as Declaration[]).find(
        (x) => x.tool === tool && x.authorization_ref === authRef,
      );
      if (!d) throw new Error(`no declaration ${tool} for ${authRef}: ${r.text}`);
      return d;
    },
    async run(authRef, tok, sessionId) {
      const r = await env.agent(
        'POST',
        '/agent/v1/runs',
        {
          agent_session_id: sessionId ?? `sess-${randomUUID()}`,
          turn_id: `turn-${randomUUID()}`,
          authorization_ref: authRef,
        },
        tok,
      );
      if (r.status !== 201) throw new Error(`run: ${r.status} ${r.text}`);
      return r.body.run_id as string;
    },
    async invoke({ authRef, tool, args, runId, id, taskId, tok, sessionId }) {
      const d = await env.declaration(authRef, tool, tok);
      return env.agent(
        'POST',
        '/agent/v1/invocations',
        {
          invocation_id: id ?? newInvocationId(),
          run_id: runId ?? (await env.run(authRef, tok, sessionId)),
          authorization_ref: authRef,
          tool,
          declaration_revision: d.declaration_revision,
          arguments: args,
          host_call_id: `call-${randomUUID()}`,
          ...(taskId ? { task_id: taskId } : {}),
        },
        tok,
      );
    },
    sql(query, ...params) {
      return sqlRows(dataDir, query, params) as never[];
    },
    async restart(more = {}) {
      await env.hub.close();
      env.hub = await createHub({ ...(await storeFor(dataDir)), adminToken, config, ...extra, ...more });
    },
    async close() {
      await env.hub.close().catch(() => undefined);
      await demo.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
  return env;
}

/** Business-operation requests (not spec fetches or look-ups) a demo system received. */
export const opRequests = (h: { requests(): Array<{ kind: string }> }) =>
  h.requests().filter((r) => r.kind === 'operation').length;

/** A valid `authorization.changed` event payload whose account is `account` (to size events in tests). */
export function authorizationEvent(hubId: string, account: string): Record<string, unknown> {
  return {
    type: 'authorization.changed',
    authorization: {
      authorization_ref: 'auth-shop-a',
      hub_id: hubId,
      system_id: 'shop-a',
      system_name: 'Shop A',
      account,
      on_behalf_of: 'operator@demo.local',
      state: 'active',
      revision: 1,
    },
  };
}

/** Appends `count` copies of an event for a client in one transaction (a long history, fast). */
export function seedEvents(
  dataDir: string,
  clientId: string,
  count: number,
  payload: Record<string, unknown>,
): void {
  seedStoredEvents(
    dataDir,
    clientId,
    count,
    String(payload.type),
    JSON.stringify(payload),
    new Date().toISOString(),
  );
}

/**
 * Gives auth-shop-a's system `count` more tools (bulk_tool_000 …), copies of its first operation:
 * a system with more tools than one search page holds. Returns the shop's tools before, and the new ones.
 */
export async function addBulkTools(
  env: HubEnv,
  count: number,
): Promise<{ before: string[]; added: string[] }> {
  const systemId = (await env.hub.store.getAuthorization('auth-shop-a'))!.system_id;
  const current = await env.hub.store.currentOperations([systemId]);
  const model = current[0]!;
  const extra = Array.from({ length: count }, (_, i) => {
    const tool = `bulk_tool_${String(i).padStart(3, '0')}`;
    return {
      ...model,
      tool,
      declaration_revision: `rev-${tool}`,
      operation: { ...model.operation, tool, description: `Bulk tool number ${i}` },
    };
  });
  await env.hub.store.replaceOperations(
    systemId,
    [...current, ...extra],
    'spec-many',
    [],
    new Date().toISOString(),
    {
      actor: 'test',
      kind: 'system.spec_refreshed',
      detail: {},
    },
  );
  return { before: current.map((o) => o.tool), added: extra.map((o) => o.tool) };
}
