/** The Hub's dependencies, built once by createHub and passed to every service and route. */
import type { BusinessOperationStatus } from '../src-shared/states.js';
import type { Logger } from 'pino';
import type { SignedPathMode, SpecDiagnostic } from '../src-shared/hub-api.js';
import type { CompiledOperation } from './acc/types.js';
import type { NoResponseReason, NotSentReason } from './dispatch/http.js';
import type { EventBus } from './events/bus.js';
import type { RateLimitSettings } from './http/rate-limit.js';
import type { Metrics } from './metrics.js';
import type { McpSupervisor } from './mcp/supervisor.js';
import type { SecretBox } from './secrets/index.js';
import type { HubStore } from './store/types.js';
import type { SchemaValidator } from './validation/ajv.js';

export type SendResult =
  | { kind: 'response'; status: number; body: unknown; body_bytes: number; truncated: boolean }
  /** An MCP server's answer to tools/call (or to the task it ran it as): `isError` is a rejection. */
  | { kind: 'mcp_result'; is_error: boolean; result: unknown; truncated: boolean; task_id: string | null }
  /** Written (or maybe written), no complete answer: the business system may have acted. */
  | { kind: 'no_response'; reason: NoResponseReason | 'server_exited'; detail: string }
  /** Provably never left the Hub (failed before its first byte was written; an MCP server not connected). */
  | { kind: 'not_sent'; reason: NotSentReason | 'not_connected'; detail: string };

export type LookupResult =
  | { outcome: BusinessOperationStatus; http_status: number; result: unknown; evidence_digest: string }
  | { outcome: 'not_found' }
  | { outcome: 'unavailable'; detail: string };

/** The Hub's outbound edge: built from src-hub/dispatch, src-hub/acc and src-hub/reconcile/lookup.ts. */
/** One business request to send: the system, the operation and its arguments, the signing inputs. */
export interface BusinessSendInput {
  baseUrl: string;
  systemId: string;
  allowInsecureHttp: boolean;
  secret: string;
  signedPath: SignedPathMode;
  op: CompiledOperation;
  args: Record<string, unknown>;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string;
  timeoutMs: number;
}

/** A business request built and signed, not sent: `send` sends it, once. */
export interface PreparedSend {
  send(signal?: AbortSignal): Promise<SendResult>;
}

export interface BusinessEdge {
  /** `secret` null: an unsigned spec GET (the system's `spec_signing: unsigned`). */
  fetchSpec(input: {
    baseUrl: string;
    systemId: string;
    allowInsecureHttp: boolean;
    specPath: string;
    timeoutMs: number;
    secret: string | null;
  }): Promise<{ ok: true; doc: unknown } | { ok: false; code: string; message: string; reason?: string }>;
  compileSpec(doc: unknown): {
    operations: CompiledOperation[];
    diagnostics: SpecDiagnostic[];
    spec_revision: string;
  };
  approvalRequired(op: CompiledOperation, args: Record<string, unknown>): boolean;
  send(input: BusinessSendInput & { signal?: AbortSignal }): Promise<SendResult>;
  /**
   * Builds and signs the request now and sends it when asked (`send` on the answer): the Hub
   * prepares a call's request while its `dispatching` record commits, and sends it only after.
   */
  prepareSend(input: BusinessSendInput): PreparedSend;
  lookup(input: {
    baseUrl: string;
    systemId: string;
    allowInsecureHttp: boolean;
    secret: string;
    signedPath: SignedPathMode;
    idempotencyKey: string;
    onBehalfOf: string;
    jobId: string;
    timeoutMs: number;
    signal?: AbortSignal;
  }): Promise<LookupResult>;
}

export interface HubSettings {
  bodyLimit: number;
  /** Request rates of the agent and admin APIs and the failed-token bound (http/rate-limit.ts). */
  rateLimits: RateLimitSettings;
  /** A request (headers and body) must arrive within this (ms); else 408 `request_timeout`. */
  requestTimeoutMs: number;
  /** The headers must arrive within this (ms). */
  headersTimeoutMs: number;
  heartbeatMs: number;
  specTimeoutMs: number;
  lookupTimeoutMs: number;
  /** How often the one shared poll looks for events other processes (the operator CLI) appended. */
  eventPollMs: number;
  /** Concurrent SSE streams one client may hold; one more is refused with 429 `too_many_streams`. */
  sseMaxStreamsPerClient: number;
  /** A stream whose reader has not drained its socket for this long is closed (ms). */
  sseStallMs: number;
  /** Events older than this are pruned from the SSE feed (ms). */
  eventRetentionMs: number;
  /** At most this many newest events are kept per client. */
  eventRetentionPerClient: number;
  /** How often the pruning runs (ms); it also runs once at start. */
  eventPruneIntervalMs: number;
  /**
   * This instance's lease on the calls it dispatches (ms): renewed every third of it; a sibling
   * turns this instance's `dispatching` calls `unknown` only once it has expired.
   */
  leaseMs: number;
  /** An MCP server must answer `initialize` within this (ms); else registration fails, a call is not sent. */
  mcpInitializeTimeoutMs: number;
  /** Reading an MCP server's whole tool list (every page) must finish within this (ms). */
  mcpListTimeoutMs: number;
  /** At most this many tools per MCP server, over at most `mcpMaxPages` pages of tools/list. */
  mcpMaxTools: number;
  mcpMaxPages: number;
  /** One message from an MCP server may be at most this many bytes. */
  mcpMaxMessageBytes: number;
  /** Tools per page of `tools/list` on the Hub's own MCP endpoint (/mcp). */
  mcpEndpointPageSize: number;
  /** Host names /mcp answers to (DNS-rebinding protection; loopback by default, port aside). */
  mcpAllowedHosts: string[];
}

/** The running Hub process as the store knows it (HubStore.registerInstance). */
export interface HubInstance {
  id: string;
  incarnation: number;
}

export interface HubContext {
  store: HubStore;
  hubId: string;
  now: () => Date;
  logger: Logger;
  bus: EventBus;
  metrics: Metrics;
  edge: BusinessEdge;
  schemas: SchemaValidator;
  settings: HubSettings;
  /** Aborted when the Hub closes, so in-flight sends end (and are recorded `unknown`). */
  shutdown: AbortSignal;
  /** Sends in progress; close() waits for them to record their outcome before closing the store. */
  inflight: Set<Promise<unknown>>;
  /** Set once the instance holds a lease; only then may it dispatch (the operator CLI never does). */
  instance: HubInstance | null;
  /** This process's connections to MCP servers (null: the operator CLI, which connects only to register). */
  mcp: McpSupervisor | null;
  /** Seals secrets before they are stored and opens them right before use (src-hub/secrets). */
  secrets: SecretBox;
}
