/** Records for store-level tests: a compiled operation, an invocation, a task, and one fresh store per dialect. */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { HttpOperation } from '../../src-hub/acc/types.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import type {
  ApprovalRecord,
  HubStore,
  InvocationChange,
  InvocationRecord,
  InvokeReadsQuery,
  TaskRecord,
} from '../../src-hub/store/types.js';
import { createTestDatabase, postgresCluster } from '../hub/store-mode.js';

export const AT = '2026-11-30T10:00:00.000Z';
export const audit = { actor: 'test', kind: 'test', detail: {} };

export function operation(tool: string, extra: Partial<HttpOperation> = {}): HttpOperation {
  return {
    tool,
    description: `the ${tool.replace(/_/g, ' ')} operation`,
    method: 'POST',
    path_template: `/${tool}`,
    path_params: [],
    query_params: [],
    body_params: ['x'],
    has_body: true,
    body_required: false,
    input_schema: { type: 'object', properties: { x: { type: 'number' } }, additionalProperties: false },
    effect: 'write',
    declared_readonly: false,
    side_effect: 'write',
    risk_level: 'low',
    approval: { required: false, prompt: null, when: [] },
    idempotent: true,
    timeout_ms: 10_000,
    rate_limit: null,
    scope: 'test',
    subject_required: false,
    audit_sensitive: false,
    guidance: null,
    declaration_revision: `rev-${tool}`,
    ...extra,
  };
}

export function invocation(extra: Partial<InvocationRecord> = {}): InvocationRecord {
  const op = extra.operation ?? operation('update_thing');
  return {
    invocation_id: `inv_${randomUUID()}`,
    client_id: 'desk',
    run_id: 'run_1',
    agent_session_id: `sess-${randomUUID()}`,
    turn_id: 'turn_1',
    authorization_ref: 'auth-a',
    authorization_revision: 1,
    system_id: 'sys-a',
    tool: op.tool,
    declaration_revision: op.declaration_revision,
    operation: op,
    arguments: { x: 1 },
    parameter_digest: 'digest',
    host_call_id: 'call-1',
    task_id: null,
    effect: op.effect,
    state: 'not_dispatched',
    dispatch: 'none',
    reason_code: null,
    reason_message: null,
    retry_after_ms: null,
    result: null,
    result_truncated: false,
    business_status: null,
    approval_id: null,
    reconciliation: [],
    permit_id: null,
    owner_instance: null,
    owner_incarnation: null,
    created_at: AT,
    updated_at: AT,
    ...extra,
  };
}

/** A task permit for a change, spending one write at `nowMs`. */
export const permitFor = (taskId: string, nowMs = Date.parse(AT)) => ({
  task_id: taskId,
  effect: 'write' as const,
  now_ms: nowMs,
  window_ms: null,
  permit_id: `prm_${randomUUID()}`,
  refused_to: 'not_dispatched' as const,
});

/** A pending approval of `call`, as invoke creates it (no preview, no prompt unless given). */
export const pendingApprovalOf = (
  call: InvocationRecord,
  extra: Partial<ApprovalRecord> = {},
): ApprovalRecord => ({
  approval_id: `apr_${randomUUID()}`,
  invocation_id: call.invocation_id,
  client_id: call.client_id,
  authorization_ref: call.authorization_ref,
  tool: call.tool,
  parameter_digest: call.parameter_digest,
  arguments_preview: null,
  prompt: null,
  state: 'pending',
  decision_id: null,
  decided_by: null,
  note: null,
  created_at: AT,
  decided_at: null,
  ...extra,
});

/** A decision of an approval that does not exist: a change carrying it fails after its other writes. */
export const MISSING_APPROVAL_DECISION = {
  approval_id: 'apr_missing',
  state: 'approved' as const,
  decision_id: 'd',
  decided_by: 'x',
  note: null,
};

/** The change that creates `rec` as `dispatching`; `extra` adds a permit, gates or anything else. */
export function dispatchChange(
  rec: InvocationRecord,
  extra: Partial<InvocationChange> = {},
): InvocationChange {
  return {
    invocation_id: rec.invocation_id,
    from: 'new',
    to: 'dispatching',
    at: AT,
    create: rec,
    patch: { dispatch: 'attempted' },
    audit: { actor: 'test', kind: 'invocation.created', detail: {} },
    ...extra,
  };
}

export function task(extra: Partial<TaskRecord> & { budget?: number; inFlight?: number } = {}): TaskRecord {
  const { budget = 10, inFlight = 100, ...rest } = extra;
  return {
    task_id: `task_${randomUUID()}`,
    client_id: 'desk',
    title: 'test',
    state: 'active',
    boundary: {
      authorizations: [{ authorization_ref: 'auth-a', tools: ['update_thing'] }],
      write_budget: budget,
      in_flight_limit: inFlight,
      rate_limit: null,
      constraints: [],
      expires_at: null,
    },
    writes_used: 0,
    permits_granted: 0,
    created_at: AT,
    updated_at: AT,
    paused_at: null,
    cancelled_at: null,
    ...rest,
  };
}

export interface OpenedStore {
  store: HubStore;
  /** Where it lives: the SQLite data directory or the PostgreSQL URL. */
  where: { dataDir?: string; url?: string };
  /** Opens the same store again (another process or instance on the same file or database). */
  reopen(): Promise<HubStore>;
  cleanup(): Promise<void>;
}

export interface StoreDialect {
  name: 'sqlite' | 'postgres';
  /** Null when the dialect can run here; otherwise why not (the tests report a skip with it). */
  unavailable: string | null;
  open(): Promise<OpenedStore>;
}

export function dialects(): StoreDialect[] {
  const pg = postgresCluster();
  return [
    {
      name: 'sqlite',
      unavailable: null,
      async open() {
        const dir = mkdtempSync(join(tmpdir(), 'hub-store-'));
        const opened: HubStore[] = [];
        const reopen = async () => {
          const s = createSqliteStore({ dataDir: dir });
          opened.push(s);
          return s;
        };
        return {
          store: await reopen(),
          where: { dataDir: dir },
          reopen,
          async cleanup() {
            for (const s of opened) await s.close();
            rmSync(dir, { recursive: true, force: true });
          },
        };
      },
    },
    {
      name: 'postgres',
      unavailable: pg ? null : 'PostgreSQL is not available here',
      async open() {
        const url = await createTestDatabase();
        const opened: HubStore[] = [];
        const reopen = async () => {
          const s = await openPostgresStore({ url });
          opened.push(s);
          return s;
        };
        return {
          store: await reopen(),
          where: { url },
          reopen,
          async cleanup() {
            for (const s of opened) await s.close();
          },
        };
      },
    },
  ];
}

/** A store with one client, system, authorization (granted) and the `update_thing` operation. */
export async function seedCatalog(
  store: HubStore,
  op: HttpOperation = operation('update_thing'),
): Promise<void> {
  await store.createClient({ client_id: 'desk', name: 'desk', token_hash: 'h', created_at: AT }, audit);
  await store.upsertSystem(
    {
      system_id: 'sys-a',
      name: 'System A',
      base_url: 'http://127.0.0.1:9',
      spec_path: '/s',
      signing_secret: 's',
      spec_signing: 'signed',
      signed_path: 'operation',
      allow_insecure_http: false,
    },
    AT,
    audit,
  );
  await store.replaceOperations(
    'sys-a',
    [{ system_id: 'sys-a', tool: op.tool, declaration_revision: op.declaration_revision, operation: op }],
    'spec-1',
    [],
    AT,
    audit,
  );
  await store.createAuthorization(
    {
      authorization_ref: 'auth-a',
      system_id: 'sys-a',
      account: 'acct',
      on_behalf_of: 'op@x',
      state: 'active',
      revision: 1,
      created_at: AT,
      updated_at: AT,
    },
    audit,
  );
  await store.grant('auth-a', 'desk', audit);
}

/**
 * The catalog (seedCatalog), run `run_1` and a task of the client: what an invoke reads before it
 * decides; answers the query of a new call of `update_thing` with that task.
 */
export async function seedInvoke(store: HubStore): Promise<InvokeReadsQuery & { task_id: string }> {
  await seedCatalog(store);
  await store.createRun({
    run_id: 'run_1',
    client_id: 'desk',
    agent_session_id: 'sess',
    turn_id: 'turn_1',
    authorization_ref: 'auth-a',
    state: 'open',
    created_at: AT,
    ended_at: null,
  });
  const t = task({ client_id: 'desk' });
  await store.createTask(t, audit);
  return {
    invocation_id: 'inv_new',
    run_id: 'run_1',
    authorization_ref: 'auth-a',
    client_id: 'desk',
    tool: 'update_thing',
    task_id: t.task_id,
  };
}
