/**
 * The one place a call's route is chosen by its system's kind (docs/mcp.md): an HTTP system gets a
 * signed HTTP request (src-hub/dispatch through the business edge), an MCP server a `tools/call`
 * (src-hub/mcp). Everything before — permits, enrollment, rate limits, approvals, the durable
 * `dispatching` record — and after — recording the outcome — is the same path for both.
 */
import type { EvidenceCheckOutcome } from '../../src-shared/states.js';
import type { BusinessSendInput, HubContext, LookupResult, PreparedSend, SendResult } from '../context.js';
import { dispatchMcp } from '../mcp/dispatch.js';
import { recoverMcp } from '../mcp/recover.js';
import { openSigningSecret } from '../secrets/system-secret.js';
import type { AuthorizationRecord, InvocationRecord, SystemRecord } from '../store/types.js';

const UNOPENED = "the system's signing secret cannot be opened with the Hub's secret key";

/**
 * A call's request built and signed ahead of its send (HTTP systems; null for MCP, whose call is
 * made at send time, and when the signing secret cannot be opened — the send reports that).
 * Nothing leaves until `sendByKind` is given it, after `dispatching` is on disk.
 */
export function prepareByKind(
  ctx: HubContext,
  target: { system: SystemRecord; auth: AuthorizationRecord },
  rec: InvocationRecord,
): PreparedCall | null {
  if (target.system.kind !== 'http') return null;
  try {
    const secret = openSigningSecret(ctx, target.system);
    if (secret === null) return null;
    return { invocation_id: rec.invocation_id, request: ctx.edge.prepareSend(httpSend(target, rec, secret)) };
  } catch {
    // whatever went wrong happens again at send time, where it is recorded as the call's outcome
    return null;
  }
}

export interface PreparedCall {
  invocation_id: string;
  request: PreparedSend;
}

function httpSend(
  { system, auth }: { system: SystemRecord; auth: AuthorizationRecord },
  rec: InvocationRecord,
  secret: string,
): BusinessSendInput {
  return {
    baseUrl: system.base_url,
    systemId: system.system_id,
    allowInsecureHttp: system.allow_insecure_http,
    secret,
    signedPath: system.signed_path,
    op: rec.operation,
    args: rec.arguments,
    onBehalfOf: auth.on_behalf_of,
    jobId: rec.run_id,
    idempotencyKey: rec.invocation_id,
    timeoutMs: rec.operation.timeout_ms,
  };
}

/** `prepared`: the request prepareByKind made for this call, sent as it is. */
export function sendByKind(
  ctx: HubContext,
  target: { system: SystemRecord; auth: AuthorizationRecord },
  rec: InvocationRecord,
  hooks: { onTaskCreated: (taskId: string) => Promise<void> },
  prepared?: PreparedCall | null,
): Promise<SendResult> {
  const { system } = target;
  switch (system.kind) {
    case 'mcp':
      return dispatchMcp(ctx, system, rec, hooks.onTaskCreated);
    case 'http': {
      if (prepared && prepared.invocation_id === rec.invocation_id)
        return prepared.request.send(ctx.shutdown);
      const secret = openSigningSecret(ctx, system);
      if (secret === null)
        return Promise.resolve({ kind: 'not_sent', reason: 'credentials_unavailable', detail: UNOPENED });
      // set, not spread in: a literal that spreads and then adds a key costs 1-2 µs on this V8
      const input: BusinessSendInput & { signal?: AbortSignal } = httpSend(target, rec, secret);
      input.signal = ctx.shutdown;
      return ctx.edge.send(input);
    }
  }
}

/** What the business system's evidence says of a call whose answer was lost (reconcile.ts). */
export type Check =
  | {
      source: 'operations_lookup' | 'lookup_tool' | 'task_status';
      outcome: Extract<EvidenceCheckOutcome, 'succeeded' | 'failed'>;
      http_status: number | null;
      result: unknown;
      evidence_digest: string;
      detail: string;
    }
  | {
      source: 'operations_lookup' | 'lookup_tool' | 'task_status' | 'none';
      outcome: Exclude<EvidenceCheckOutcome, 'succeeded' | 'failed'>;
      detail: string;
    };

const LOOKUP_WORDS = {
  succeeded: 'the business system reports the operation committed',
  failed: 'the business system reports the operation failed',
  not_found:
    'the business system has no record of this idempotency key; that alone does not prove it never ran',
} as const;

export async function checkByKind(
  ctx: HubContext,
  target: { system: SystemRecord; auth: AuthorizationRecord },
  rec: InvocationRecord,
): Promise<Check> {
  const { system, auth } = target;
  switch (system.kind) {
    case 'mcp': {
      const r = await recoverMcp(ctx, system, rec);
      if ('evidence_digest' in r) return { ...r, http_status: null };
      return r;
    }
    case 'http': {
      const secret = openSigningSecret(ctx, system);
      if (secret === null) return { source: 'none', outcome: 'unavailable', detail: UNOPENED };
      const r: LookupResult = await ctx.edge.lookup({
        baseUrl: system.base_url,
        systemId: system.system_id,
        allowInsecureHttp: system.allow_insecure_http,
        secret,
        signedPath: system.signed_path,
        idempotencyKey: rec.invocation_id,
        onBehalfOf: auth.on_behalf_of,
        jobId: rec.run_id,
        timeoutMs: ctx.settings.lookupTimeoutMs,
        signal: ctx.shutdown,
      });
      if (r.outcome === 'succeeded' || r.outcome === 'failed')
        return {
          source: 'operations_lookup',
          outcome: r.outcome,
          http_status: r.http_status,
          result: r.result,
          evidence_digest: r.evidence_digest,
          detail: LOOKUP_WORDS[r.outcome],
        };
      if (!('detail' in r))
        return { source: 'operations_lookup', outcome: 'not_found', detail: LOOKUP_WORDS.not_found };
      return {
        source: 'operations_lookup',
        outcome: 'unavailable',
        detail: `the operations look-up is unavailable: ${r.detail}`,
      };
    }
  }
}
