/** Row <-> record mapping for both dialects. Every JSON column is parsed here and only here. */
import type {
  ApprovalRecord,
  ClientRecord,
  InstanceRecord,
  MigrationStatus,
  OperationRecord,
  SessionEnrollmentRecord,
  AuditRecord,
  AuthorizationRecord,
  EventRecord,
  InvocationRecord,
  PermitRecord,
  RunRecord,
  SystemRecord,
  TaskRecord,
} from '../types.js';

import { operationJson, parseOperation } from './operation-json.js';
import type { Row, SqlValue } from './session.js';

const str = (v: unknown): string => String(v);
const strOrNull = (v: unknown): string | null => (v === null || v === undefined ? null : String(v));
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v));
const json = <T>(v: unknown, fallback: T): T =>
  v === null || v === undefined ? fallback : (JSON.parse(String(v)) as T);

export function toClient(r: Row): ClientRecord {
  return {
    client_id: str(r.client_id),
    name: str(r.name),
    token_hash: str(r.token_hash),
    created_at: str(r.created_at),
  };
}

export function toOperation(r: Row): OperationRecord {
  return {
    system_id: str(r.system_id),
    tool: str(r.tool),
    declaration_revision: str(r.declaration_revision),
    operation: parseOperation(str(r.operation_json)),
  };
}

export function toEnrollment(r: Row): SessionEnrollmentRecord {
  return {
    client_id: str(r.client_id),
    agent_session_id: str(r.agent_session_id),
    task_id: str(r.task_id),
    invocation_id: str(r.invocation_id),
    enrolled_at: str(r.enrolled_at),
  };
}

export function toInstance(r: Row): InstanceRecord {
  return {
    instance_id: str(r.instance_id),
    incarnation: Number(r.incarnation),
    host: str(r.host),
    pid: Number(r.pid),
    started_at: str(r.started_at),
    lease_expires_at_ms: Number(r.lease_expires_at_ms),
    stopped_at: strOrNull(r.stopped_at),
  };
}

export function toMigration(r: Row): MigrationStatus {
  return {
    version: Number(r.version),
    name: str(r.name),
    checksum: str(r.checksum),
    applied_at: str(r.applied_at),
  };
}

export function toSystem(r: Row): SystemRecord {
  return {
    system_id: str(r.system_id),
    name: str(r.name),
    base_url: str(r.base_url),
    spec_path: str(r.spec_path),
    signing_secret: str(r.signing_secret),
    spec_signing: r.spec_signing === 'unsigned' ? 'unsigned' : 'signed',
    signed_path: r.signed_path === 'full' ? 'full' : 'operation',
    allow_insecure_http: Number(r.allow_insecure_http) === 1,
    spec_revision: strOrNull(r.spec_revision),
    diagnostics: json(r.diagnostics_json, []),
    refreshed_at: strOrNull(r.refreshed_at),
    created_at: str(r.created_at),
    kind: r.kind === 'mcp' ? 'mcp' : 'http',
    mcp: json(r.mcp_json, null),
    mcp_tools: json(r.mcp_tools_json, null),
    mcp_overlays: json(r.mcp_overlays_json, {}),
    retired_at: strOrNull(r.retired_at),
  };
}

export function toAuthorization(r: Row): AuthorizationRecord {
  return {
    authorization_ref: str(r.authorization_ref),
    system_id: str(r.system_id),
    account: str(r.account),
    on_behalf_of: str(r.on_behalf_of),
    state: str(r.state) as AuthorizationRecord['state'],
    revision: Number(r.revision),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
  };
}

export function toRun(r: Row): RunRecord {
  return {
    run_id: str(r.run_id),
    client_id: str(r.client_id),
    agent_session_id: str(r.agent_session_id),
    turn_id: str(r.turn_id),
    authorization_ref: str(r.authorization_ref),
    state: str(r.state) as RunRecord['state'],
    created_at: str(r.created_at),
    ended_at: strOrNull(r.ended_at),
  };
}

export function toInvocation(r: Row): InvocationRecord {
  return {
    invocation_id: str(r.invocation_id),
    client_id: str(r.client_id),
    run_id: str(r.run_id),
    agent_session_id: str(r.agent_session_id),
    turn_id: str(r.turn_id),
    authorization_ref: str(r.authorization_ref),
    authorization_revision: Number(r.authorization_revision),
    system_id: str(r.system_id),
    tool: str(r.tool),
    declaration_revision: str(r.declaration_revision),
    operation: parseOperation(str(r.operation_json)),
    arguments: json(r.arguments_json, {}),
    parameter_digest: str(r.parameter_digest),
    host_call_id: str(r.host_call_id),
    task_id: strOrNull(r.task_id),
    effect: str(r.effect) as InvocationRecord['effect'],
    state: str(r.state) as InvocationRecord['state'],
    dispatch: str(r.dispatch) as InvocationRecord['dispatch'],
    reason_code: strOrNull(r.reason_code),
    reason_message: strOrNull(r.reason_message),
    retry_after_ms: numOrNull(r.retry_after_ms),
    result: json(r.result_json, null),
    result_truncated: Number(r.result_truncated) === 1,
    business_status: numOrNull(r.business_status),
    approval_id: strOrNull(r.approval_id),
    reconciliation: json(r.reconciliation_json, []),
    permit_id: strOrNull(r.permit_id),
    owner_instance: strOrNull(r.owner_instance),
    owner_incarnation: numOrNull(r.owner_incarnation),
    remote_task_id: strOrNull(r.remote_task_id),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
  };
}

/** The invocations table's columns, in the order `invocationValues` lists them. */
export const INVOCATION_COLUMNS = [
  'invocation_id',
  'client_id',
  'run_id',
  'agent_session_id',
  'turn_id',
  'authorization_ref',
  'authorization_revision',
  'system_id',
  'tool',
  'declaration_revision',
  'operation_json',
  'arguments_json',
  'parameter_digest',
  'host_call_id',
  'task_id',
  'effect',
  'state',
  'dispatch',
  'reason_code',
  'reason_message',
  'retry_after_ms',
  'result_json',
  'result_truncated',
  'business_status',
  'approval_id',
  'reconciliation_json',
  'permit_id',
  'owner_instance',
  'owner_incarnation',
  'remote_task_id',
  'created_at',
  'updated_at',
] as const;
type InvocationColumn = (typeof INVOCATION_COLUMNS)[number];

export function invocationValues(i: InvocationRecord): SqlValue[] {
  return INVOCATION_COLUMNS.map((c) => COLUMN_VALUE[c](i));
}

/** The record field each JSON column is rendered from (every other column has its field's name). */
const JSON_FIELD = {
  operation_json: 'operation',
  arguments_json: 'arguments',
  result_json: 'result',
  reconciliation_json: 'reconciliation',
} as const satisfies Partial<Record<InvocationColumn, keyof InvocationRecord>>;

/**
 * The columns whose value `after` changes from `before` (the row as it was read), with their new
 * values, in table order; never the id. A JSON column counts as changed only when its field is
 * another object than before's: a change keeps the parsed values it does not set (applyPatch), so
 * an update renders and writes only what moved — never the compiled operation or the arguments
 * again, which a call keeps from its creation.
 */
export function changedInvocationValues(
  before: InvocationRecord,
  after: InvocationRecord,
): Array<[InvocationColumn, SqlValue]> {
  const changed: Array<[InvocationColumn, SqlValue]> = [];
  for (const c of INVOCATION_COLUMNS) {
    if (c === 'invocation_id') continue;
    const field = (JSON_FIELD as Partial<Record<InvocationColumn, keyof InvocationRecord>>)[c] ?? c;
    const was = before[field as keyof InvocationRecord];
    const now = after[field as keyof InvocationRecord];
    if (was === now || ((was ?? null) === null && (now ?? null) === null)) continue;
    changed.push([c, COLUMN_VALUE[c](after)]);
  }
  return changed;
}

const COLUMN_VALUE: Record<InvocationColumn, (i: InvocationRecord) => SqlValue> = {
  invocation_id: (i) => i.invocation_id,
  client_id: (i) => i.client_id,
  run_id: (i) => i.run_id,
  agent_session_id: (i) => i.agent_session_id,
  turn_id: (i) => i.turn_id,
  authorization_ref: (i) => i.authorization_ref,
  authorization_revision: (i) => i.authorization_revision,
  system_id: (i) => i.system_id,
  tool: (i) => i.tool,
  declaration_revision: (i) => i.declaration_revision,
  operation_json: (i) => operationJson(i.operation),
  arguments_json: (i) => JSON.stringify(i.arguments),
  parameter_digest: (i) => i.parameter_digest,
  host_call_id: (i) => i.host_call_id,
  task_id: (i) => i.task_id,
  effect: (i) => i.effect,
  state: (i) => i.state,
  dispatch: (i) => i.dispatch,
  reason_code: (i) => i.reason_code,
  reason_message: (i) => i.reason_message,
  retry_after_ms: (i) => i.retry_after_ms,
  result_json: (i) => (i.result === null || i.result === undefined ? null : JSON.stringify(i.result)),
  result_truncated: (i) => (i.result_truncated ? 1 : 0),
  business_status: (i) => i.business_status,
  approval_id: (i) => i.approval_id,
  reconciliation_json: (i) => JSON.stringify(i.reconciliation),
  permit_id: (i) => i.permit_id,
  owner_instance: (i) => i.owner_instance ?? null,
  owner_incarnation: (i) => i.owner_incarnation ?? null,
  remote_task_id: (i) => i.remote_task_id ?? null,
  created_at: (i) => i.created_at,
  updated_at: (i) => i.updated_at,
};

export function toApproval(r: Row): ApprovalRecord {
  return {
    approval_id: str(r.approval_id),
    invocation_id: str(r.invocation_id),
    client_id: str(r.client_id),
    authorization_ref: str(r.authorization_ref),
    tool: str(r.tool),
    parameter_digest: str(r.parameter_digest),
    arguments_preview: json(r.arguments_preview_json, null),
    prompt: strOrNull(r.prompt),
    state: str(r.state) as ApprovalRecord['state'],
    decision_id: strOrNull(r.decision_id),
    decided_by: strOrNull(r.decided_by),
    note: strOrNull(r.note),
    created_at: str(r.created_at),
    decided_at: strOrNull(r.decided_at),
  };
}

export function toTask(r: Row): TaskRecord {
  return {
    task_id: str(r.task_id),
    client_id: str(r.client_id),
    title: str(r.title),
    state: str(r.state) as TaskRecord['state'],
    boundary: json(r.boundary_json, {} as TaskRecord['boundary']),
    writes_used: Number(r.writes_used),
    permits_granted: Number(r.permits_granted),
    created_at: str(r.created_at),
    updated_at: str(r.updated_at),
    paused_at: strOrNull(r.paused_at),
    cancelled_at: strOrNull(r.cancelled_at),
  };
}

export function toPermit(r: Row): PermitRecord {
  return {
    permit_id: str(r.permit_id),
    task_id: str(r.task_id),
    invocation_id: str(r.invocation_id),
    effect: str(r.effect) as PermitRecord['effect'],
    granted_at_ms: Number(r.granted_at_ms),
    released_at_ms: numOrNull(r.released_at_ms),
  };
}

export function toAudit(r: Row): AuditRecord {
  return {
    seq: Number(r.seq),
    at: str(r.at),
    actor: str(r.actor),
    kind: str(r.kind),
    invocation_id: strOrNull(r.invocation_id),
    task_id: strOrNull(r.task_id),
    from_state: strOrNull(r.from_state),
    to_state: strOrNull(r.to_state),
    detail: json(r.detail_json, {}),
  };
}

export function toEvent(r: Row): EventRecord {
  return {
    seq: Number(r.seq),
    client_id: str(r.client_id),
    type: str(r.type),
    payload: json(r.payload_json, {}),
    at: str(r.at),
  };
}
