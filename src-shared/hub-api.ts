/**
 * The Hub's HTTP wire contract (agent and admin APIs), as zod schemas.
 * The Hub produces these shapes; the host's hub-client validates every response against them.
 * Field names are snake_case on the wire. See docs/hub-api.md for routes and error codes.
 */
import { z } from 'zod';
import {
  APPROVAL_STATES,
  ATTESTATION_OUTCOMES,
  EVIDENCE_SOURCES,
  MCP_CONNECTION_STATES,
  MCP_TRANSPORTS,
  SYSTEM_KINDS,
  RECONCILIATION_OUTCOMES,
  RESUME_ACTIONS,
  AUTHORIZATION_STATES,
  DISPATCH_EVIDENCE,
  INVOCATION_STATES,
  RUN_STATES,
  TASK_REFUSAL_CODES,
  TASK_STATES,
} from './states.js';

export const InvocationStateSchema = z.enum(INVOCATION_STATES);
export const TaskStateSchema = z.enum(TASK_STATES);
export const TaskRefusalCodeSchema = z.enum(TASK_REFUSAL_CODES);
export const AuthorizationStateSchema = z.enum(AUTHORIZATION_STATES);
export const ApprovalStateSchema = z.enum(APPROVAL_STATES);
export const DispatchEvidenceSchema = z.enum(DISPATCH_EVIDENCE);
export const RunStateSchema = z.enum(RUN_STATES);

/** Every non-2xx response body (`retry_after_ms` on the 429s that can be retried later). */
export const HubErrorBodySchema = z.object({
  error: z.string().min(1),
  message: z.string(),
  retry_after_ms: z.number().int().nonnegative().optional(),
});
export type HubErrorBody = z.infer<typeof HubErrorBodySchema>;

/** Stable error codes (HTTP status in comments). */
export const HUB_ERROR_CODES = [
  'invalid_json', // 400
  'invalid_request', // 400 body/params/query fail the route schema (wrong types, unknown fields)
  'unauthorized', // 401 missing/invalid bearer token
  'forbidden', // 403 token valid but not allowed (e.g. client token on admin route)
  'not_found', // 404 generic: route or resource (never used for invocations)
  'invocation_not_found', // 404 authoritative: this client has no invocation with that id
  'task_not_found', // 404
  'run_not_found', // 404
  'approval_not_found', // 404
  'authorization_not_found', // 404 (or not granted to this client)
  'system_not_found', // 404
  'tool_not_found', // 404 tool not declared (enabled) for that authorization
  'body_too_large', // 413
  'invocation_conflict', // 409 same invocation_id, different parameter digest (or different binding)
  'declaration_changed', // 409 declaration_revision is not the current one; nothing sent
  'run_ended', // 409 run no longer accepts invocations
  'run_mismatch', // 409 run belongs to another authorization/client
  'authorization_revoked', // 409
  'authorization_rebound', // 409 authorization_revision no longer current
  'decision_conflict', // 409 approval already decided differently / decision_id reused for another decision
  'task_state_conflict', // 409 transition not allowed (e.g. continue a cancelled task)
  'spec_invalid', // 422 refresh produced an invalid spec; the previous spec is kept
  'system_unreachable', // 502 could not fetch the spec
  'url_scheme_refused', // 400 a base URL that is not http(s), or carries a user name or password
  'insecure_http_refused', // 400 plain http to a host that is not loopback without allow_insecure_http
  'destination_refused', // 400 a link-local, cloud-metadata, unspecified or multicast address
  'internal_error', // 500
  'unsupported_media_type', // 415 request body is not application/json (added by the Hub issue)
  'already_exists', // 409 a client, authorization or system id is already taken (added by the Hub issue)
  'rate_limited', // 429 this client (or the admin) sent more requests than its rate limit; retry_after_ms
  'too_many_streams', // 429 this client already holds its maximum of concurrent event streams
  'too_many_auth_failures', // 429 too many failed token attempts from this address; retry_after_ms
  'uri_too_long', // 414 a path parameter or the request target exceeds the Hub's bound
  'headers_too_large', // 431 the request line and headers exceed the Hub's bound
  'request_timeout', // 408 the request (headers and body) did not arrive in time
  'store_unavailable', // 503 the Hub cannot reach its store (database); a call not yet recorded dispatching was not sent
  'invocation_not_attestable', // 409 attest: the call is not unresolved (only unknown / unverified calls may be attested)
  'mcp_server_unreachable', // 502 an MCP server could not be started or connected, or did not answer initialize / tools/list; nothing stored
  'system_kind_mismatch', // 409 the system is of the other kind (an MCP route on an HTTP system, or an id re-registered as the other kind)
  'mcp_tools_invalid', // 422 an MCP server's tool list cannot be governed (too many tools, a malformed schema, a duplicate or invalid name); nothing stored
  'system_retired', // 409 the system is retired: it takes no new calls (register it again to revive it); nothing stored or sent
  'system_has_unresolved_invocations', // 409 retire: calls to the system are not in a final state yet; resolve them first (nothing changed)
] as const;
export type HubErrorCode = (typeof HUB_ERROR_CODES)[number];

export const JsonSchemaObject = z.record(z.string(), z.unknown());

export const AuthorizationSchema = z.object({
  authorization_ref: z.string(),
  hub_id: z.string(),
  system_id: z.string(),
  system_name: z.string(),
  account: z.string(),
  on_behalf_of: z.string(),
  state: AuthorizationStateSchema,
  revision: z.number().int().min(1),
  /** The kind of the authorization's system (`http` or `mcp`); absent: an older Hub (http). */
  system_kind: z.enum(SYSTEM_KINDS).optional(),
  /**
   * When the authorization's system was retired (docs/hub-api.md "Retiring a system"); null: in
   * service. Only admin views show a retired system's authorizations: the agent API leaves them
   * out. Absent: an older Hub.
   */
  system_retired_at: z.string().nullable().optional(),
});
export type Authorization = z.infer<typeof AuthorizationSchema>;
export const AuthorizationListSchema = z.object({ authorizations: z.array(AuthorizationSchema) });

/** The compiled operators of an approval rule (BailingHub's `>` `>=` `<` `<=` `==` `!=` map onto them). */
export const APPROVAL_RULE_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'exists'] as const;

export const ApprovalRuleSchema = z.object({
  // ACC approval.when[]: a JSON-pointer-ish argument path, an operator and a value. Rules written in
  // BailingHub's {param, op, value, label} format are compiled to this form (docs/business-systems.md).
  path: z.string(),
  op: z.enum(APPROVAL_RULE_OPS),
  value: z.unknown().optional(),
  /** Why the rule asks for approval, in the business system's words (BailingHub's `label`). */
  label: z.string().max(120).optional(),
  /** `neq` also matches an absent argument (BailingHub's `!=`). */
  match_absent: z.boolean().optional(),
});

/** Upper bounds of a declaration's `model_guidance` (the Hub trims to them; clients may rely on them). */
export const MODEL_GUIDANCE_LIMITS = {
  text: 500, // when_to_use, returns
  examples: 3,
  example: 300,
  notes: 5,
  note: 300,
  approval_prompt: 300,
  approval_when: 10,
  rule: 160,
} as const;

/**
 * What the business system tells the model about one tool, normalized from its ACC `guidance`
 * (`when_to_use` or `whenToUse` or `use_when`, `returns`, `examples`, other text hints) and its
 * approval block, each part bounded (MODEL_GUIDANCE_LIMITS): meant to be rendered into the
 * model's function description. Null when the system gave none. See docs/hub-api.md.
 */
export const ModelGuidanceSchema = z.object({
  when_to_use: z.string().max(MODEL_GUIDANCE_LIMITS.text).nullable(),
  returns: z.string().max(MODEL_GUIDANCE_LIMITS.text).nullable(),
  /** Example arguments (compact JSON) or example sentences, as the system wrote them. */
  examples: z.array(z.string().max(MODEL_GUIDANCE_LIMITS.example)).max(MODEL_GUIDANCE_LIMITS.examples),
  /** Other hints (e.g. restrictions, context). */
  notes: z.array(z.string().max(MODEL_GUIDANCE_LIMITS.note)).max(MODEL_GUIDANCE_LIMITS.notes),
  /** The approval prompt template (e.g. "Refund {amount} for {order_id}?"), when approval may apply. */
  approval_prompt: z.string().max(MODEL_GUIDANCE_LIMITS.approval_prompt).nullable(),
  /** When a human must approve: each rule's label, or the rule itself ("amount > 500"). */
  approval_when: z.array(z.string().max(MODEL_GUIDANCE_LIMITS.rule)).max(MODEL_GUIDANCE_LIMITS.approval_when),
});
export type ModelGuidance = z.infer<typeof ModelGuidanceSchema>;

export const DeclarationSchema = z.object({
  hub_id: z.string(),
  authorization_ref: z.string(),
  system_id: z.string(),
  system_name: z.string(),
  account: z.string(),
  tool: z.string(), // the operation's name (operationId), unique within one system
  description: z.string(),
  input_schema: JsonSchemaObject, // full JSON Schema of the arguments object
  effect: z.enum(['read', 'write']), // write = not execution.readonly
  side_effect: z.enum(['none', 'read', 'write', 'notify', 'external']),
  risk_level: z.enum(['low', 'medium', 'high']),
  approval: z.object({
    required: z.boolean(), // true when approval.required or risk high; `when` rules may add more
    prompt: z.string().nullable(),
    when: z.array(ApprovalRuleSchema),
  }),
  idempotent: z.boolean(),
  timeout_ms: z.number().int().positive(),
  scope: z.string(),
  audit_sensitive: z.boolean(),
  guidance: z.record(z.string(), z.unknown()).nullable(), // the ACC guidance block as published
  /** The guidance for the model's function description, normalized and bounded (absent: an older Hub). */
  model_guidance: ModelGuidanceSchema.nullable().optional(),
  declaration_revision: z.string(), // changes whenever the compiled operation changes
  /** `http` (OpenAPI + ACC) or `mcp` (an MCP server's tool and its overlay); absent: an older Hub (http). */
  system_kind: z.enum(SYSTEM_KINDS).optional(),
});
export type Declaration = z.infer<typeof DeclarationSchema>;

/** How far a search can page (`offset + limit`): a listing of every tool of a large system fits. */
export const TOOL_SEARCH_MAX_OFFSET = 10_000;
export const ToolSearchRequestSchema = z.object({
  query: z.string().max(500),
  authorization_refs: z.array(z.string()).max(64).optional(),
  limit: z.number().int().min(1).max(50).optional(),
  /** Skip this many results (paging: the next page starts where `more` said there is more). */
  offset: z.number().int().min(0).max(TOOL_SEARCH_MAX_OFFSET).optional(),
});
export type ToolSearchRequest = z.infer<typeof ToolSearchRequestSchema>;
export const ToolSearchResponseSchema = z.object({
  declarations: z.array(DeclarationSchema.extend({ score: z.number() })),
  /** Results exist beyond this page (absent: an older Hub, which does not page). */
  more: z.boolean().optional(),
});
export type ToolSearchResponse = z.infer<typeof ToolSearchResponseSchema>;

export const CreateRunRequestSchema = z.object({
  agent_session_id: z.string().min(1).max(200),
  turn_id: z.string().min(1).max(200),
  authorization_ref: z.string().min(1),
});
export type CreateRunRequest = z.infer<typeof CreateRunRequestSchema>;
export const RunSchema = z.object({
  run_id: z.string(),
  agent_session_id: z.string(),
  turn_id: z.string(),
  authorization_ref: z.string(),
  state: RunStateSchema,
  created_at: z.string(),
  ended_at: z.string().nullable(),
});
export type Run = z.infer<typeof RunSchema>;

export const InvokeRequestSchema = z.object({
  // client-made; also the business idempotency key, sent as a header: visible ASCII only
  invocation_id: z
    .string()
    .min(8)
    .max(128)
    .regex(/^[\x21-\x7e]+$/),
  run_id: z.string().min(1),
  authorization_ref: z.string().min(1),
  authorization_revision: z.number().int().min(1).optional(),
  tool: z.string().min(1),
  declaration_revision: z.string().min(1),
  arguments: z.record(z.string(), z.unknown()),
  host_call_id: z.string().min(1).max(200),
  task_id: z.string().min(1).optional(),
});
export type InvokeRequest = z.infer<typeof InvokeRequestSchema>;

export const ReconciliationEvidenceSchema = z.object({
  checked_at: z.string(),
  /** `operator_attested`: a person recorded what they checked in the business system (attest). */
  source: z.enum(EVIDENCE_SOURCES),
  outcome: z.enum(RECONCILIATION_OUTCOMES),
  http_status: z.number().int().nullable(),
  evidence_digest: z.string().nullable(),
  detail: z.string(),
});
export type ReconciliationEvidence = z.infer<typeof ReconciliationEvidenceSchema>;

export const ReceiptSchema = z.object({
  schema: z.literal('bailing.receipt.v1'),
  invocation_id: z.string(),
  state: InvocationStateSchema,
  dispatch: DispatchEvidenceSchema,
  /** Why it was not dispatched / failed: a TaskRefusalCode, 'arguments_invalid', 'business_rejected', ... */
  reason_code: z.string().nullable(),
  reason_message: z.string().nullable(),
  retry_after_ms: z.number().int().nullable(),
  /** The business system's response body, bounded (see result_truncated). Null until known. */
  result: z.unknown().nullable(),
  result_truncated: z.boolean(),
  business_status: z.number().int().nullable(),
  receipt_digest: z.string(), // sha256 hex over the canonical receipt facts
  run_id: z.string(), // the original run, forever
  agent_session_id: z.string(),
  turn_id: z.string(),
  authorization_ref: z.string(),
  authorization_revision: z.number().int(),
  tool: z.string(),
  declaration_revision: z.string(),
  parameter_digest: z.string(), // sha256 hex of canonical JSON of the arguments
  host_call_id: z.string(),
  task_id: z.string().nullable(),
  effect: z.enum(['read', 'write']),
  approval: z
    .object({
      approval_id: z.string(),
      state: ApprovalStateSchema,
      decided_at: z.string().nullable(),
      prompt: z.string().nullable(),
    })
    .nullable(),
  reconciliation: z.array(ReconciliationEvidenceSchema),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Receipt = z.infer<typeof ReceiptSchema>;

export const ResumeResponseSchema = z.object({
  /** dispatched: an approved call was sent now; reconciled: an unknown call was checked; unchanged: nothing done. */
  action: z.enum(RESUME_ACTIONS),
  receipt: ReceiptSchema,
});
export type ResumeResponse = z.infer<typeof ResumeResponseSchema>;

/**
 * POST /agent/v1/invocations/{id}/attest: the operator records what they checked in the business
 * system for a call whose result is not known (`unknown` / `unverified`). Never sends anything.
 */
export const AttestRequestSchema = z.object({
  /** `succeeded`: it happened; `failed`: it did not happen. */
  outcome: z.enum(ATTESTATION_OUTCOMES),
  /** What the operator checked, in their words (kept as the evidence and in the audit). */
  note: z.string().min(1).max(2000).regex(/\S/, 'a note must say something'),
});
export type AttestRequest = z.infer<typeof AttestRequestSchema>;

export const AttestResponseSchema = z.object({
  /** attested: the call is settled now; unchanged: this same attestation was recorded before. */
  action: z.enum(['attested', 'unchanged']),
  receipt: ReceiptSchema,
});
export type AttestResponse = z.infer<typeof AttestResponseSchema>;

export const RateWindowSchema = z.enum(['1s', '1m', '1h', '1d']);
export type RateWindow = z.infer<typeof RateWindowSchema>;

export const TaskBoundarySchema = z.object({
  authorizations: z
    .array(
      z.object({ authorization_ref: z.string().min(1), tools: z.array(z.string().min(1)).min(1).max(200) }),
    )
    .min(1)
    .max(64),
  write_budget: z.number().int().min(0).max(1_000_000),
  in_flight_limit: z.number().int().min(1).max(10_000),
  rate_limit: z
    .object({ count: z.number().int().min(1).max(1_000_000), window: RateWindowSchema })
    .nullable(),
  /** Extra JSON Schema per (authorization_ref?, tool) that arguments must also satisfy. */
  constraints: z
    .array(
      z.object({
        authorization_ref: z.string().min(1).nullable(),
        tool: z.string().min(1),
        schema: JsonSchemaObject,
        description: z.string().max(500).nullable(),
      }),
    )
    .max(200),
  expires_at: z.string().nullable(),
});
export type TaskBoundary = z.infer<typeof TaskBoundarySchema>;

export const CreateTaskRequestSchema = z.object({
  title: z.string().min(1).max(200),
  authorizations: TaskBoundarySchema.shape.authorizations,
  write_budget: TaskBoundarySchema.shape.write_budget,
  in_flight_limit: TaskBoundarySchema.shape.in_flight_limit,
  rate_limit: TaskBoundarySchema.shape.rate_limit.optional(),
  constraints: TaskBoundarySchema.shape.constraints.optional(),
  /** An ISO 8601 date-time with an offset (Z or ±hh:mm) that exists on the calendar. */
  expires_at: z.iso.datetime({ offset: true }).nullable().optional(),
});
export type CreateTaskRequest = z.infer<typeof CreateTaskRequestSchema>;

export const UnresolvedCallSchema = z.object({
  invocation_id: z.string(),
  state: InvocationStateSchema,
  tool: z.string(),
  authorization_ref: z.string(),
  updated_at: z.string(),
});

/**
 * A TaskView lists at most this many unresolved calls (the oldest first); `unresolved_total` and
 * `counts` say how many there are. It keeps a view's size — and the cost of publishing one with
 * every change of a task — independent of how many calls are open.
 */
export const TASK_VIEW_UNRESOLVED_LIMIT = 100;

/**
 * The business system of one authorization of a task's boundary, from the Hub's own records: its
 * name and kind, and when it was retired (null: in service). A retired system's authorizations
 * leave the agent list (`GET /agent/v1/authorizations`), so a client would otherwise have no name
 * for it.
 */
export const TaskSystemSchema = z.object({
  authorization_ref: z.string(),
  system_id: z.string(),
  system_name: z.string(),
  system_kind: z.enum(SYSTEM_KINDS),
  system_retired_at: z.string().nullable(),
});
export type TaskSystem = z.infer<typeof TaskSystemSchema>;

export const TaskViewSchema = z.object({
  task_id: z.string(),
  client_id: z.string(),
  title: z.string(),
  state: TaskStateSchema,
  expired: z.boolean(),
  boundary: TaskBoundarySchema,
  writes_used: z.number().int(),
  writes_left: z.number().int(),
  in_flight: z.number().int(),
  rate: z
    .object({
      count: z.number().int(),
      window: RateWindowSchema,
      used_in_window: z.number().int(),
      resets_at: z.string(),
    })
    .nullable(),
  counts: z.record(InvocationStateSchema, z.number().int()),
  /**
   * Of the settled calls, those settled by an operator's attestation rather than by the business
   * system (absent in answers of an older Hub).
   */
  settled_by_operator: z.object({ succeeded: z.number().int(), failed: z.number().int() }).optional(),
  permits_granted: z.number().int(),
  /** The oldest unresolved calls, at most TASK_VIEW_UNRESOLVED_LIMIT. */
  unresolved: z.array(UnresolvedCallSchema),
  /** How many calls are unresolved in all (absent in answers of an older Hub, which listed them all). */
  unresolved_total: z.number().int().optional(),
  created_at: z.string(),
  updated_at: z.string(),
  paused_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
  /**
   * The systems of the boundary's authorizations, in the boundary's order, on the views the Hub
   * serves to a caller (task routes of the agent and admin APIs). Absent on `task.changed` events
   * (rendered with every permit batch, which reads nothing more for them) and from an older Hub.
   */
  systems: z.array(TaskSystemSchema).optional(),
});
export type TaskView = z.infer<typeof TaskViewSchema>;
export const TaskListSchema = z.object({ tasks: z.array(TaskViewSchema) });

/** Server-Sent Events on GET /agent/v1/events: `id: <seq>`, `event: <type>`, `data: <json>`. */
export const HubEventSchema = z.discriminatedUnion('type', [
  z.object({ seq: z.number().int(), type: z.literal('invocation.changed'), receipt: ReceiptSchema }),
  z.object({ seq: z.number().int(), type: z.literal('task.changed'), task: TaskViewSchema }),
  z.object({
    seq: z.number().int(),
    type: z.literal('authorization.changed'),
    authorization: AuthorizationSchema,
  }),
  /**
   * Sent first when a stream resumes below the client's retention horizon: the events up to
   * `pruned_through` are gone (receipts and audit are not). The reader should re-read the state it
   * derives from events; the stream then continues after `pruned_through`.
   */
  z.object({
    seq: z.number().int(),
    type: z.literal('stream.reset'),
    reason: z.literal('events_pruned'),
    pruned_through: z.number().int().nonnegative(),
  }),
]);
export type HubEvent = z.infer<typeof HubEventSchema>;

// ---------- admin API ----------

/** Whether the Hub signs its GET of a system's spec like a call (default `signed`). */
export const SPEC_SIGNING_MODES = ['signed', 'unsigned'] as const;
export type SpecSigningMode = (typeof SPEC_SIGNING_MODES)[number];
/**
 * Which path a call's signature covers when the base URL has a path prefix: `operation` (default,
 * BailingHub's convention) signs the operation's path as written in the spec; `full` signs the
 * request target as sent (prefix + path). See docs/business-systems.md.
 */
export const SIGNED_PATH_MODES = ['operation', 'full'] as const;
export type SignedPathMode = (typeof SIGNED_PATH_MODES)[number];

export const SystemIdSchema = z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/);

export const RegisterSystemRequestSchema = z.object({
  /** Absent or `http`: an HTTP business system (an MCP server is registered with `kind: "mcp"`). */
  kind: z.literal('http').optional(),
  system_id: SystemIdSchema,
  name: z.string().min(1).max(200),
  base_url: z.string().url(),
  signing_secret: z.string().min(16).max(512),
  spec_path: z.string().startsWith('/').optional(), // default /.well-known/bailing/tools.json
  spec_signing: z.enum(SPEC_SIGNING_MODES).optional(), // default signed
  signed_path: z.enum(SIGNED_PATH_MODES).optional(), // default operation
  /** Plain http to a host that is not loopback (default false: refused). Shown as a warning everywhere. */
  allow_insecure_http: z.boolean().optional(),
});
export type RegisterSystemRequest = z.infer<typeof RegisterSystemRequestSchema>;

export const SpecDiagnosticSchema = z.object({
  code: z.string(), // e.g. acc_version_unsupported, schema_unresolvable, operation_id_missing
  operation: z.string().nullable(),
  message: z.string(),
});
export type SpecDiagnostic = z.infer<typeof SpecDiagnosticSchema>;

export const SystemSchema = z.object({
  system_id: z.string(),
  name: z.string(),
  base_url: z.string(),
  spec_path: z.string(),
  spec_signing: z.enum(SPEC_SIGNING_MODES),
  signed_path: z.enum(SIGNED_PATH_MODES),
  allow_insecure_http: z.boolean(),
  /** Worded warnings about the system (e.g. plain http to another machine); empty when none. */
  warnings: z.array(z.string()),
  spec_revision: z.string().nullable(),
  tool_count: z.number().int(),
  diagnostics: z.array(SpecDiagnosticSchema),
  refreshed_at: z.string().nullable(),
  /** Absent: an older Hub (http). For `mcp`, base_url is the server's URL (empty for stdio), spec_path empty. */
  kind: z.enum(SYSTEM_KINDS).optional(),
  /** The MCP server's connection (never its secrets); null for an HTTP system. */
  mcp: z
    .lazy(() => McpServerViewSchema)
    .nullable()
    .optional(),
  /** When the system was retired (POST /admin/v1/systems/{id}/retire); null in service; absent: an older Hub. */
  retired_at: z.string().nullable().optional(),
});
export type HubSystem = z.infer<typeof SystemSchema>;

/** A client id (the `<client_id>` of its token `bdc_<client_id>.<secret>`). */
export const ClientIdSchema = z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/);

export const CreateClientRequestSchema = z.object({
  name: z.string().min(1).max(200),
  client_id: ClientIdSchema.optional(),
});

export const GrantRequestSchema = z.object({ client_id: ClientIdSchema });

export const CreateClientResponseSchema = z.object({
  client_id: z.string(),
  name: z.string(),
  token: z.string(), // returned once; stored hashed
});

export const CreateAuthorizationRequestSchema = z.object({
  system_id: z.string(),
  account: z.string().min(1).max(200),
  on_behalf_of: z.string().min(1).max(200),
  authorization_ref: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/)
    .optional(),
});

export const ApprovalSchema = z.object({
  approval_id: z.string(),
  invocation_id: z.string(),
  client_id: z.string(),
  authorization_ref: z.string(),
  tool: z.string(),
  parameter_digest: z.string(),
  arguments_preview: z.record(z.string(), z.unknown()).nullable(), // null when audit_sensitive
  prompt: z.string().nullable(),
  state: ApprovalStateSchema,
  decision_id: z.string().nullable(),
  decided_by: z.string().nullable(),
  created_at: z.string(),
  decided_at: z.string().nullable(),
  /**
   * The business system's name, also once the system is retired (the agent list no longer carries
   * it then); null when the Hub no longer has the authorization; absent from older Hubs.
   */
  system_name: z.string().nullable().optional(),
});
export type Approval = z.infer<typeof ApprovalSchema>;
export const ApprovalListSchema = z.object({ approvals: z.array(ApprovalSchema) });

export const ApprovalDecisionRequestSchema = z.object({
  decision_id: z.string().min(1).max(200),
  decision: z.enum(['approve', 'deny']),
  note: z.string().max(1000).optional(),
});

export const AuditEntrySchema = z.object({
  seq: z.number().int(),
  at: z.string(),
  actor: z.string(),
  kind: z.string(), // e.g. invocation.state, task.paused, approval.decided, authorization.revoked
  invocation_id: z.string().nullable(),
  task_id: z.string().nullable(),
  from_state: z.string().nullable(),
  to_state: z.string().nullable(),
  detail: z.record(z.string(), z.unknown()),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

// ---------- admin metrics (added by the Hub issue; for tests and operators) ----------

/** GET /admin/v1/metrics: in-memory counters since the Hub process started. */
export const ClientMetricsSchema = z.object({
  /** Agent API requests by `METHOD /route/template` (e.g. "POST /agent/v1/invocations"). */
  requests: z.record(z.string(), z.number().int()),
  requests_total: z.number().int(),
  invokes: z.number().int(),
  resumes: z.number().int(),
  /** Business requests the Hub actually sent for this client's invocations. */
  dispatches: z.number().int(),
});
export type ClientMetrics = z.infer<typeof ClientMetricsSchema>;
export const HubMetricsSchema = z.object({
  started_at: z.string(),
  durability: z.string(),
  clients: z.record(z.string(), ClientMetricsSchema),
  /** Open SSE streams per client, now. */
  event_streams: z.record(z.string(), z.number().int()),
  /** SQLite: transactions committed (one fsync each) and the writes they carried, since the store opened. */
  store_commits: z.object({ batches: z.number().int(), writes: z.number().int() }).nullable().optional(),
});
export type HubMetrics = z.infer<typeof HubMetricsSchema>;

// ---------- MCP servers as business systems (docs/mcp.md) ----------

/**
 * A tool name the Hub governs: what MCP recommends (1–128 of A–Z a–z 0–9 _ - .). A server's tool
 * with any other name is refused at registration (`tool_name_invalid`).
 */
export const McpToolNameSchema = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9_.-]+$/);
const EnvNameSchema = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]{0,127}$/);

/** A server the Hub starts and supervises (only an admin may register one). */
export const McpStdioServerSchema = z.object({
  transport: z.literal('stdio'),
  command: z.string().min(1).max(1024),
  args: z.array(z.string().max(4096)).max(64).optional(),
  /** Environment values that are not secret (shown back in the system view). */
  env: z.record(EnvNameSchema, z.string().max(8192)).optional(),
  /** Secret environment values: stored like signing secrets, never returned, logged or audited. */
  secret_env: z.record(EnvNameSchema, z.string().min(1).max(8192)).optional(),
  cwd: z.string().min(1).max(1024).optional(),
});

/** A Streamable HTTP server at a URL, with an optional bearer token (stored like a signing secret). */
export const McpHttpServerSchema = z.object({
  transport: z.literal('streamable_http'),
  url: z.string().url().max(2048),
  bearer_token: z.string().min(1).max(4096).optional(),
});

export const McpServerConfigSchema = z.discriminatedUnion('transport', [
  McpStdioServerSchema,
  McpHttpServerSchema,
]);
export type McpServerConfig = z.infer<typeof McpServerConfigSchema>;

/**
 * The operator's overlay of one MCP tool (docs/mcp.md#the-overlay). MCP annotations are hints from a
 * server that may not be trusted; what the overlay sets wins, what it leaves out comes from the
 * annotations with the spec's defaults. Part of the declaration revision.
 */
export const ToolOverlaySchema = z.object({
  effect: z.enum(['read', 'write']).optional(),
  risk_level: z.enum(['low', 'medium', 'high']).optional(),
  approval: z
    .object({
      required: z.boolean(),
      prompt: z.string().max(300).nullable().optional(),
      when: z.array(ApprovalRuleSchema).max(20).optional(),
    })
    .optional(),
  rate_limit: z
    .object({ count: z.number().int().min(1).max(1_000_000), window: RateWindowSchema })
    .nullable()
    .optional(),
  timeout_ms: z.number().int().min(100).max(600_000).optional(),
  idempotent: z.boolean().optional(),
  /** A read-only tool of the same server that answers for an idempotency key (docs/mcp.md#look-up-tools). */
  lookup_tool: McpToolNameSchema.nullable().optional(),
  enabled: z.boolean().optional(),
  audit_sensitive: z.boolean().optional(),
});
export type ToolOverlay = z.infer<typeof ToolOverlaySchema>;

export const RegisterMcpSystemRequestSchema = z.object({
  kind: z.literal('mcp'),
  system_id: SystemIdSchema,
  name: z.string().min(1).max(200),
  server: McpServerConfigSchema,
  /** A tool's timeout when its overlay sets none (default 60 s). */
  default_timeout_ms: z.number().int().min(100).max(600_000).optional(),
  /** Overlays by tool name, applied with the tool list (e.g. from the config file). */
  overlays: z.record(McpToolNameSchema, ToolOverlaySchema).optional(),
});
export type RegisterMcpSystemRequest = z.infer<typeof RegisterMcpSystemRequestSchema>;

/** `POST /admin/v1/systems`: an HTTP system, or an MCP server (`kind: "mcp"`). */
export const RegisterAnySystemRequestSchema = z.union([
  RegisterSystemRequestSchema,
  RegisterMcpSystemRequestSchema,
]);
export type RegisterAnySystemRequest = z.infer<typeof RegisterAnySystemRequestSchema>;

/** An MCP server as the system view shows it: never a secret value, only the names of secret variables. */
export const McpServerViewSchema = z.object({
  transport: z.enum(MCP_TRANSPORTS),
  command: z.string().nullable(),
  args: z.array(z.string()),
  env: z.record(z.string(), z.string()),
  secret_env_names: z.array(z.string()),
  cwd: z.string().nullable(),
  url: z.string().nullable(),
  has_bearer_token: z.boolean(),
  default_timeout_ms: z.number().int(),
  /** This Hub instance's connection to the server (null: the answering process does not supervise it). */
  connection: z.enum(MCP_CONNECTION_STATES).nullable(),
  server_info: z.object({ name: z.string(), version: z.string() }).nullable(),
});
export type McpServerView = z.infer<typeof McpServerViewSchema>;

/** The MCP annotations a server gave a tool (hints; absent ones take the spec's defaults). */
export const McpToolAnnotationsSchema = z.object({
  title: z.string().optional(),
  readOnlyHint: z.boolean().optional(),
  destructiveHint: z.boolean().optional(),
  idempotentHint: z.boolean().optional(),
  openWorldHint: z.boolean().optional(),
});
export type McpToolAnnotations = z.infer<typeof McpToolAnnotationsSchema>;

export const MCP_TASK_SUPPORT = ['forbidden', 'optional', 'required'] as const;

/** One MCP tool with its overlay and how the Hub governs it now (GET /admin/v1/systems/{id}/tools). */
export const McpToolViewSchema = z.object({
  tool: z.string(),
  title: z.string().nullable(),
  description: z.string(),
  annotations: McpToolAnnotationsSchema,
  task_support: z.enum(MCP_TASK_SUPPORT),
  overlay: ToolOverlaySchema.nullable(),
  governed: z.object({
    effect: z.enum(['read', 'write']),
    risk_level: z.enum(['low', 'medium', 'high']),
    approval_required: z.boolean(),
    approval_rules: z.number().int(),
    rate_limit: z.object({ count: z.number().int(), window: RateWindowSchema }).nullable(),
    timeout_ms: z.number().int(),
    idempotent: z.boolean(),
    lookup_tool: z.string().nullable(),
    enabled: z.boolean(),
    audit_sensitive: z.boolean(),
  }),
  /** The current declaration revision (null while the tool is disabled). */
  declaration_revision: z.string().nullable(),
});
export type McpToolView = z.infer<typeof McpToolViewSchema>;
export const McpToolListSchema = z.object({ system_id: z.string(), tools: z.array(McpToolViewSchema) });
export type McpToolList = z.infer<typeof McpToolListSchema>;
