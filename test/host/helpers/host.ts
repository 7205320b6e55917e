/**
 * The invocation runtime on its own: an InvocationRuntime over real stores in a data directory, talking to
 * the real Hub. `reopen()` builds a completely new runtime, new store instances and a new Hub
 * client over the same files (full host reconstruction, minus the process).
 */
import { join } from 'node:path';
import { canonicalJson, sha256Hex } from '../../../src-shared/digest.js';
import type { Declaration } from '../../../src-shared/hub-api.js';
import { createHubClient, type HubClient } from '../../../src-main/hub-client/index.js';
import {
  createFileInvocationStore,
  createSqliteInvocationStore,
  type InvocationStore,
} from '../../../src-main/journal/index.js';
import type {
  InvocationRuntime,
  SessionHandle,
  ScopeMember,
  SessionScope,
} from '../../../src-main/runtime/invocation-ports.js';
import { createInvocationRuntime } from '../../../src-main/runtime/invocations/index.js';
import { createSqliteScopeStore, type SqliteScopeStore } from '../../../src-main/runtime/scope/index.js';
import type { HubEnv } from './hub-env.js';

export interface Host {
  runtime: InvocationRuntime;
  hub: HubClient;
  store: InvocationStore;
  scopes: SqliteScopeStore;
  close(): void;
}

export interface HostOptions {
  storeKind?: 'sqlite' | 'file';
  wrapStore?: (s: InvocationStore) => InvocationStore;
  timeoutMs?: number;
  hubUrl?: string;
}

export function openHost(env: HubEnv, dataDir: string, opts: HostOptions = {}): Host {
  const hub = createHubClient({
    baseUrl: opts.hubUrl ?? env.hub.url,
    token: env.clientToken,
    hubId: env.hub.hubId,
    timeoutMs: opts.timeoutMs ?? 15_000,
  });
  const base =
    opts.storeKind === 'file'
      ? createFileInvocationStore({ directory: join(dataDir, 'invocation-records') })
      : createSqliteInvocationStore({ path: join(dataDir, 'journal.sqlite') });
  const store = opts.wrapStore ? opts.wrapStore(base) : base;
  const scopes = createSqliteScopeStore({ path: join(dataDir, 'scopes.sqlite') });
  const runtime = createInvocationRuntime({ hub, invocationStore: store, scopeStore: scopes });
  return {
    runtime,
    hub,
    store,
    scopes,
    close() {
      void base.close?.();
      scopes.close();
    },
  };
}

export async function createSession(
  env: HubEnv,
  host: Host,
  sessionId: string,
  refs: string[],
  taskId: string | null = null,
): Promise<SessionScope> {
  const auths = await host.hub.listAuthorizations();
  const members: ScopeMember[] = refs.map((ref) => {
    const a = auths.find((x) => x.authorization_ref === ref)!;
    return {
      authorization_ref: a.authorization_ref,
      authorization_revision: a.revision,
      system_id: a.system_id,
      account: a.account,
    };
  });
  const connectionKey = sha256Hex(canonicalJson({ hub_url: env.hub.url, client_id: env.clientId }));
  const scope: SessionScope = {
    sessionId,
    hubId: env.hub.hubId,
    clientId: env.clientId,
    workspaceId: 'ws-test',
    connectionKey,
    members,
    fingerprint: sha256Hex(canonicalJson({ connection_key: connectionKey, members })),
    revision: 1,
    taskId,
  };
  await host.scopes.save(scope);
  return scope;
}

export function handle(scope: SessionScope, turnId: string | null = null): SessionHandle {
  return { sessionId: scope.sessionId, scope, turnId };
}

export async function declaration(host: Host, ref: string, tool: string): Promise<Declaration> {
  const found = await host.hub.searchTools({
    query: tool.replace(/_/g, ' '),
    authorization_refs: [ref],
    limit: 50,
  });
  const d = found.declarations.find((x) => x.tool === tool && x.authorization_ref === ref);
  if (!d) throw new Error(`no declaration ${tool} for ${ref}`);
  const { score: _score, ...decl } = d;
  return decl;
}

export async function newRun(host: Host, scope: SessionScope, ref: string, turnId: string): Promise<string> {
  return (
    await host.hub.createRun({ agent_session_id: scope.sessionId, turn_id: turnId, authorization_ref: ref })
  ).run_id;
}
