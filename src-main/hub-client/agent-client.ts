/**
 * The typed client for the Hub's agent API (client bearer token). One method per route; every
 * response validated against src-shared/hub-api.ts; an AbortSignal on every call; no retries.
 */
import { z } from 'zod';
import {
  AttestRequestSchema,
  AttestResponseSchema,
  AuthorizationListSchema,
  CreateRunRequestSchema,
  CreateTaskRequestSchema,
  InvokeRequestSchema,
  ReceiptSchema,
  ResumeResponseSchema,
  RunSchema,
  TaskListSchema,
  TaskViewSchema,
  ToolSearchRequestSchema,
  ToolSearchResponseSchema,
  type AttestRequest,
  type AttestResponse,
  type Authorization,
  type CreateRunRequest,
  type CreateTaskRequest,
  type InvokeRequest,
  type Receipt,
  type ResumeResponse,
  type Run,
  type TaskView,
  type ToolSearchRequest,
  type ToolSearchResponse,
} from '../../src-shared/hub-api.js';
import { HubClientError } from './errors.js';
import { createHttpCore, enc, type CallOptions, type FetchLike } from './http.js';
import { subscribeEvents, type SubscribeOptions, type Subscription } from './sse.js';

export interface HubClientOptions {
  baseUrl: string;
  token: string;
  /** The Hub's id as this host knows it (part of the connection identity); defaults to the base URL. */
  hubId?: string;
  fetch?: FetchLike;
  timeoutMs?: number;
}

export const HealthSchema = z.object({}).loose();

export interface HubClient {
  readonly hubId: string;
  readonly baseUrl: string;
  health(opts?: CallOptions): Promise<Record<string, unknown>>;
  listAuthorizations(opts?: CallOptions): Promise<Authorization[]>;
  /**
   * The same list with the authorizations of retired systems too, each marked `system_retired_at`
   * (`?include=retired`), for a scope check to tell a retired system from an authorization taken
   * away. A Hub from before that parameter refuses it (400 `invalid_request`) or ignores it: its
   * plain list is answered then, and a refusal is remembered (the plain list asked from then on).
   */
  listAuthorizationsWithRetired(opts?: CallOptions): Promise<Authorization[]>;
  searchTools(req: ToolSearchRequest, opts?: CallOptions): Promise<ToolSearchResponse>;
  createRun(req: CreateRunRequest, opts?: CallOptions): Promise<Run>;
  endRun(runId: string, opts?: CallOptions): Promise<Run>;
  invoke(req: InvokeRequest, opts?: CallOptions): Promise<Receipt>;
  /** Inspect: read-only GET of the original receipt. */
  getInvocation(invocationId: string, opts?: CallOptions): Promise<Receipt>;
  /** Resume with the original id and an empty body. */
  resumeInvocation(invocationId: string, opts?: CallOptions): Promise<ResumeResponse>;
  /** The operator's attestation of an unresolved call: settles it from what they checked; sends nothing. */
  attestInvocation(invocationId: string, req: AttestRequest, opts?: CallOptions): Promise<AttestResponse>;
  createTask(req: CreateTaskRequest, opts?: CallOptions): Promise<TaskView>;
  listTasks(opts?: CallOptions): Promise<TaskView[]>;
  getTask(taskId: string, opts?: CallOptions): Promise<TaskView>;
  pauseTask(taskId: string, opts?: CallOptions): Promise<TaskView>;
  continueTask(taskId: string, opts?: CallOptions): Promise<TaskView>;
  cancelTask(taskId: string, opts?: CallOptions): Promise<TaskView>;
  subscribeEvents(opts: SubscribeOptions): Subscription;
}

function checkRequest<T>(schema: z.ZodType<T>, value: T, method: string, path: string): T {
  const r = schema.safeParse(value);
  if (!r.success) {
    const where = r.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(body)'}: ${i.code}`)
      .join('; ');
    throw new HubClientError(
      'invalid_request',
      null,
      'invalid_request',
      `request not sent: ${where}`,
      method,
      path,
    );
  }
  return r.data;
}

export function createHubClient(options: HubClientOptions): HubClient {
  const http = createHttpCore(options);
  const hubId = options.hubId ?? http.baseUrl;
  /** This Hub refused `?include=retired` (a Hub from before it): the plain list is asked instead. */
  let retiredRefused = false;
  const get = <T>(path: string, schema: z.ZodType<T>, opts?: CallOptions) =>
    http.request({ method: 'GET', path, schema, signal: opts?.signal });
  const post = <T>(path: string, body: unknown, schema: z.ZodType<T>, opts?: CallOptions) =>
    http.request({ method: 'POST', path, body, schema, signal: opts?.signal });

  return {
    hubId,
    baseUrl: http.baseUrl,
    health: (opts) => get('/health', HealthSchema, opts),
    listAuthorizations: async (opts) =>
      (await get('/agent/v1/authorizations', AuthorizationListSchema, opts)).authorizations,
    async listAuthorizationsWithRetired(opts) {
      if (!retiredRefused) {
        try {
          return (await get('/agent/v1/authorizations?include=retired', AuthorizationListSchema, opts))
            .authorizations;
        } catch (err) {
          if (!(err instanceof HubClientError && err.status === 400 && err.code === 'invalid_request'))
            throw err;
          retiredRefused = true;
        }
      }
      return (await get('/agent/v1/authorizations', AuthorizationListSchema, opts)).authorizations;
    },
    // A search changes nothing at the Hub: pooled like a read (writes get a connection of their own).
    searchTools: async (req, opts) =>
      http.request({
        method: 'POST',
        path: '/agent/v1/tools/search',
        body: checkRequest(ToolSearchRequestSchema, req, 'POST', '/agent/v1/tools/search'),
        schema: ToolSearchResponseSchema,
        signal: opts?.signal,
        readOnly: true,
      }),
    createRun: async (req, opts) =>
      post(
        '/agent/v1/runs',
        checkRequest(CreateRunRequestSchema, req, 'POST', '/agent/v1/runs'),
        RunSchema,
        opts,
      ),
    endRun: (runId, opts) => post(`/agent/v1/runs/${enc(runId)}/end`, {}, RunSchema, opts),
    invoke: async (req, opts) =>
      post(
        '/agent/v1/invocations',
        checkRequest(InvokeRequestSchema, req, 'POST', '/agent/v1/invocations'),
        ReceiptSchema,
        opts,
      ),
    getInvocation: (id, opts) => get(`/agent/v1/invocations/${enc(id)}`, ReceiptSchema, opts),
    resumeInvocation: (id, opts) =>
      post(`/agent/v1/invocations/${enc(id)}/resume`, {}, ResumeResponseSchema, opts),
    attestInvocation: async (id, req, opts) => {
      const path = `/agent/v1/invocations/${enc(id)}/attest`;
      return post(path, checkRequest(AttestRequestSchema, req, 'POST', path), AttestResponseSchema, opts);
    },
    createTask: async (req, opts) =>
      post(
        '/agent/v1/tasks',
        checkRequest(CreateTaskRequestSchema, req, 'POST', '/agent/v1/tasks'),
        TaskViewSchema,
        opts,
      ),
    listTasks: async (opts) => (await get('/agent/v1/tasks', TaskListSchema, opts)).tasks,
    getTask: (id, opts) => get(`/agent/v1/tasks/${enc(id)}`, TaskViewSchema, opts),
    pauseTask: (id, opts) => post(`/agent/v1/tasks/${enc(id)}/pause`, {}, TaskViewSchema, opts),
    continueTask: (id, opts) => post(`/agent/v1/tasks/${enc(id)}/continue`, {}, TaskViewSchema, opts),
    cancelTask: (id, opts) => post(`/agent/v1/tasks/${enc(id)}/cancel`, {}, TaskViewSchema, opts),
    subscribeEvents: (opts) => subscribeEvents(http, opts),
  };
}
