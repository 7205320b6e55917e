/**
 * The typed client for the Hub's admin API (admin bearer token). Used by operator tooling and
 * tests; the desktop runtime itself never holds an admin token.
 */
import { z } from 'zod';
import {
  ApprovalDecisionRequestSchema,
  ApprovalListSchema,
  ApprovalSchema,
  AuditEntrySchema,
  AuthorizationListSchema,
  AuthorizationSchema,
  CreateAuthorizationRequestSchema,
  CreateClientResponseSchema,
  McpToolListSchema,
  McpToolViewSchema,
  RegisterAnySystemRequestSchema,
  SystemSchema,
  TaskListSchema,
  TaskViewSchema,
  type Approval,
  type AuditEntry,
  type Authorization,
  type HubSystem,
  type McpToolList,
  type McpToolView,
  type RegisterAnySystemRequest,
  type TaskView,
  type ToolOverlay,
} from '../../src-shared/hub-api.js';
import { HubClientError } from './errors.js';
import { createHttpCore, enc, type CallOptions, type FetchLike } from './http.js';

export interface HubAdminClientOptions {
  baseUrl: string;
  token: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

export type CreateClientResponse = z.infer<typeof CreateClientResponseSchema>;
export type CreateAuthorizationRequest = z.infer<typeof CreateAuthorizationRequestSchema>;
export type ApprovalDecisionRequest = z.infer<typeof ApprovalDecisionRequestSchema>;

export const SystemListSchema = z.object({ systems: z.array(SystemSchema) }).loose();
export const AuditListSchema = z.object({ entries: z.array(AuditEntrySchema) }).loose();
/** Metrics are counters keyed by name (e.g. invocations_created); values are numbers. */
export const MetricsSchema = z.record(z.string(), z.unknown());

export interface AuditQuery {
  invocation_id?: string;
  task_id?: string;
  kind?: string;
  after_seq?: number;
  limit?: number;
}

export interface HubAdminClient {
  /** An HTTP system, or an MCP server (`kind: "mcp"`, docs/mcp.md). */
  registerSystem(req: RegisterAnySystemRequest, opts?: CallOptions): Promise<HubSystem>;
  refreshSystem(systemId: string, opts?: CallOptions): Promise<HubSystem>;
  /** Retires the system (docs/hub-api.md "Retiring a system"): idempotent, refused while a call is unresolved. */
  retireSystem(systemId: string, opts?: CallOptions): Promise<HubSystem>;
  listSystems(opts?: CallOptions): Promise<HubSystem[]>;
  listAllAuthorizations(opts?: CallOptions): Promise<Authorization[]>;
  /** An MCP server's tools, each with its overlay and how the Hub governs it now. */
  listMcpTools(systemId: string, opts?: CallOptions): Promise<McpToolList>;
  setToolOverlay(
    systemId: string,
    tool: string,
    overlay: ToolOverlay,
    opts?: CallOptions,
  ): Promise<McpToolView>;
  clearToolOverlay(systemId: string, tool: string, opts?: CallOptions): Promise<McpToolView>;
  createClient(req: { name: string }, opts?: CallOptions): Promise<CreateClientResponse>;
  createAuthorization(req: CreateAuthorizationRequest, opts?: CallOptions): Promise<Authorization>;
  grantAuthorization(ref: string, clientId: string, opts?: CallOptions): Promise<Authorization>;
  revokeAuthorization(ref: string, opts?: CallOptions): Promise<Authorization>;
  rebindAuthorization(
    ref: string,
    body?: Record<string, unknown>,
    opts?: CallOptions,
  ): Promise<Authorization>;
  listApprovals(query?: { state?: string }, opts?: CallOptions): Promise<Approval[]>;
  decideApproval(approvalId: string, req: ApprovalDecisionRequest, opts?: CallOptions): Promise<Approval>;
  listTasks(opts?: CallOptions): Promise<TaskView[]>;
  pauseTask(taskId: string, opts?: CallOptions): Promise<TaskView>;
  continueTask(taskId: string, opts?: CallOptions): Promise<TaskView>;
  cancelTask(taskId: string, opts?: CallOptions): Promise<TaskView>;
  audit(query?: AuditQuery, opts?: CallOptions): Promise<AuditEntry[]>;
  metrics(opts?: CallOptions): Promise<Record<string, unknown>>;
}

function checked<T>(schema: z.ZodType<T>, value: unknown, path: string): T {
  const r = schema.safeParse(value);
  if (!r.success)
    throw new HubClientError(
      'invalid_request',
      null,
      'invalid_request',
      'request not sent: body does not match the contract',
      'POST',
      path,
    );
  return r.data;
}

export function createHubAdminClient(options: HubAdminClientOptions): HubAdminClient {
  const http = createHttpCore(options);
  const get = <T>(
    path: string,
    schema: z.ZodType<T>,
    opts?: CallOptions,
    query?: Record<string, string | number | undefined>,
  ) => http.request({ method: 'GET', path, schema, signal: opts?.signal, query });
  const post = <T>(path: string, body: unknown, schema: z.ZodType<T>, opts?: CallOptions) =>
    http.request({ method: 'POST', path, body, schema, signal: opts?.signal });

  return {
    registerSystem: async (req, opts) =>
      post(
        '/admin/v1/systems',
        checked(RegisterAnySystemRequestSchema, req, '/admin/v1/systems'),
        SystemSchema,
        opts,
      ),
    refreshSystem: (id, opts) => post(`/admin/v1/systems/${enc(id)}/refresh`, {}, SystemSchema, opts),
    retireSystem: (id, opts) => post(`/admin/v1/systems/${enc(id)}/retire`, {}, SystemSchema, opts),
    listSystems: async (opts) => (await get('/admin/v1/systems', SystemListSchema, opts)).systems,
    listAllAuthorizations: async (opts) =>
      (await get('/admin/v1/authorizations', AuthorizationListSchema, opts)).authorizations,
    listMcpTools: (id, opts) => get(`/admin/v1/systems/${enc(id)}/tools`, McpToolListSchema, opts),
    setToolOverlay: (id, tool, overlay, opts) =>
      post(`/admin/v1/systems/${enc(id)}/tools/${enc(tool)}/overlay`, overlay, McpToolViewSchema, opts),
    clearToolOverlay: (id, tool, opts) =>
      post(`/admin/v1/systems/${enc(id)}/tools/${enc(tool)}/overlay/clear`, {}, McpToolViewSchema, opts),
    createClient: (req, opts) => post('/admin/v1/clients', req, CreateClientResponseSchema, opts),
    createAuthorization: async (req, opts) =>
      post(
        '/admin/v1/authorizations',
        checked(CreateAuthorizationRequestSchema, req, '/admin/v1/authorizations'),
        AuthorizationSchema,
        opts,
      ),
    grantAuthorization: (ref, clientId, opts) =>
      post(`/admin/v1/authorizations/${enc(ref)}/grants`, { client_id: clientId }, AuthorizationSchema, opts),
    revokeAuthorization: (ref, opts) =>
      post(`/admin/v1/authorizations/${enc(ref)}/revoke`, {}, AuthorizationSchema, opts),
    rebindAuthorization: (ref, body, opts) =>
      post(`/admin/v1/authorizations/${enc(ref)}/rebind`, body ?? {}, AuthorizationSchema, opts),
    listApprovals: async (query, opts) =>
      (await get('/admin/v1/approvals', ApprovalListSchema, opts, query)).approvals,
    decideApproval: async (id, req, opts) =>
      post(
        `/admin/v1/approvals/${enc(id)}/decision`,
        checked(ApprovalDecisionRequestSchema, req, '/admin/v1/approvals/decision'),
        ApprovalSchema,
        opts,
      ),
    listTasks: async (opts) => (await get('/admin/v1/tasks', TaskListSchema, opts)).tasks,
    pauseTask: (id, opts) => post(`/admin/v1/tasks/${enc(id)}/pause`, {}, TaskViewSchema, opts),
    continueTask: (id, opts) => post(`/admin/v1/tasks/${enc(id)}/continue`, {}, TaskViewSchema, opts),
    cancelTask: (id, opts) => post(`/admin/v1/tasks/${enc(id)}/cancel`, {}, TaskViewSchema, opts),
    audit: async (query, opts) => (await get('/admin/v1/audit', AuditListSchema, opts, { ...query })).entries,
    metrics: (opts) => get('/admin/v1/metrics', MetricsSchema, opts),
  };
}
