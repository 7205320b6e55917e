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
});
export type Declaration = z.infer<typeof DeclarationSchema>;

export const ToolSearchRequestSchema = z.object({
  query: z.string().max(500),
  authorization_refs: z.array(z.string()).max(64).optional(),
  limit: z.number().int().min(1).max(50).optional(),
});
export type ToolSearchRequest = z.infer<typeof ToolSearchRequestSchema>;
export const ToolSearchResponseSchema = z.object({
  declarations: z.array(DeclarationSchema.extend({ score: z.number() })),
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
  unresolved: z.array(UnresolvedCallSchema),
  created_at: z.string(),
  updated_at: z.string(),
  paused_at: z.string().nullable(),
  cancelled_at: z.string().nullable(),
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

export const RegisterSystemRequestSchema = z.object({
  system_id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,62}$/),
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
  spec_revision: z.string().nullable(),
  tool_count: z.number().int(),
  diagnostics: z.array(SpecDiagnosticSchema),
  refreshed_at: z.string().nullable(),
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
