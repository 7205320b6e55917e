/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
/**
 * Shared helpers for the invariant suite: the real Hub (createHub on a temp SQLite dir) in front of
 * the real demo systems (test/hub/helpers.ts startEnv), plus counting helpers that read the business
 * systems' own request logs (a replayed idempotency key is invisible in the ledger, so "one id, one
 * dispatch" is checked on the request log).
 */
import { afterAll, beforeAll } from 'vitest';
import type { DeskRuntime } from '../../src-main/runtime/desk-runtime.js';
import { startEnv, type HubEnv } from '../hub/helpers.js';
import { startRuntimeTestEnv, type RuntimeTestEnv } from '../runtime/fixtures/env.js';
import { newDataDir, startRuntime } from '../runtime/fixtures/runtime.js';

export { startEnv, newInvocationId, type HubEnv } from '../hub/helpers.js';

type Handle = HubEnv['demo']['shopA'];

/** Business operation requests a system received carrying this idempotency key (= invocation id). */
export const dispatchesOf = (h: Handle, invocationId: string) =>
  h.requests().filter((r) => r.kind === 'operation' && r.idempotency_key === invocationId).length;

/** Every business operation request (any key) a system received. */
export const operationRequests = (h: Handle) => h.requests().filter((r) => r.kind === 'operation').length;

export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  what: string,
  ms = 10_000,
): Promise<void> {
  const end = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

export async function createTask(env: HubEnv, body: Record<string, unknown>): Promise<any> {
  const r = await env.agent('POST', '/agent/v1/tasks', body);
  if (r.status !== 201 && r.status !== 200) throw new Error(`task: ${r.status} ${r.text}`);
  return r.body;
}

export async function taskView(env: HubEnv, taskId: string): Promise<any> {
  return (await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body;
}

export async function receipt(env: HubEnv, id: string): Promise<any> {
  return (await env.agent('GET', `/agent/v1/invocations/${id}`)).body;
}

/** Finds the pending approval of an invocation and decides it through the admin API. */
export async function decide(env: HubEnv, invocationId: string, decision: 'approve' | 'deny'): Promise<any> {
  const list = await env.admin('GET', '/admin/v1/approvals?state=pending');
  const a = (list.body.approvals as any[]).find((x) => x.invocation_id === invocationId);
  if (!a) throw new Error(`no pending approval for ${invocationId}: ${list.text}`);
  const r = await env.admin('POST', `/admin/v1/approvals/${a.approval_id}/decision`, {
    decision_id: `d-${invocationId}`,
    decision,
  });
  if (r.status !== 200) throw new Error(`decision: ${r.status} ${r.text}`);
  return r.body;
}

export const startHubEnv = startEnv;

import { createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A proxy in front of the Hub that destroys the connection of selected requests before forwarding
 * them (the Hub never sees them), e.g. the invoke after the host saved its fence.
 */
export async function startDroppingProxy(target: string): Promise<{
  url: string;
  drop(pred: ((method: string, path: string) => boolean) | null): void;
  seen(): string[];
  close(): Promise<void>;
}> {
  const t = new URL(target);
  let pred: ((method: string, path: string) => boolean) | null = null;
  const log: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    log.push(`${req.method} ${path}`);
    if (pred?.(req.method ?? '', path)) {
      req.socket.destroy();
      return;
    }
    const up = httpRequest(
      {
        host: t.hostname,
        port: t.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, host: t.host },
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    drop: (p) => {
      pred = p;
    },
    seen: () => log.slice(),
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/**
 * The real desk runtime on a fresh data dir, in front of the runtime test env (Hub, demo systems,
 * scripted model). Registers the suite's beforeAll/afterAll; the returned box is filled before the
 * first test. A test that reopens the host assigns `live.runtime`; afterAll closes the current one.
 */
export interface LiveRuntime {
  env: RuntimeTestEnv;
  runtime: DeskRuntime;
  dataDir: string;
}

export function useLiveRuntime(): LiveRuntime {
  const live = {} as LiveRuntime;
  beforeAll(async () => {
    live.env = await startRuntimeTestEnv();
    live.dataDir = newDataDir();
    live.runtime = (await startRuntime(live.env, live.dataDir)).runtime;
  }, 30_000);
  afterAll(async () => {
    await live.runtime?.close();
    await live.env?.close();
  });
  return live;
}
