/**
 * Sends one invocation that is already recorded `dispatching` (its permit, if any, is granted)
 * and records what is known afterwards. Never retries, never re-sends.
 *   2xx            -> succeeded (dispatch confirmed)
 *   4xx            -> failed    (the system answered and rejected it; the permit stays spent)
 *   5xx            -> unknown   (the system answered with an error; it may have committed: reconcile)
 *   no response    -> unknown   (timeout, connection lost, Hub shutting down after the request left)
 *   never sent     -> not_dispatched with its NOT_SENT_CODE (it failed before its first byte was
 *                     written): the permit, budget and rate slot are given back in the same transaction;
 *                     an approved call (resumed) goes back to `approved`, so a later resume may send it
 */
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { ReconciliationEvidence } from '../../src-shared/hub-api.js';
import type { InvocationState, NotSentReasonCode } from '../../src-shared/states.js';
import type { HubContext, SendResult } from '../context.js';
import type { AuthorizationRecord, InvocationPatch, InvocationRecord, SystemRecord } from '../store/types.js';
import { StoreUnavailableError } from '../store/errors.js';
import { mcpResultOutcome } from '../mcp/outcome.js';
import { sendByKind, type PreparedCall } from './by-kind.js';
import { NO_RESPONSE_CODE, NOT_SENT_CODE } from './reason-codes.js';
import { transitionInvocation } from './transition.js';
import { whenStoreReturns } from './when-store-returns.js';

/** Where a call goes: its system and authorization as read from the store. */
export interface SendTarget {
  system: SystemRecord;
  auth: AuthorizationRecord;
}

/**
 * `target`: the system and authorization, when the caller read them together with its own checks
 * just before recording `dispatching`; otherwise they are read here. `prepared`: the request the
 * caller built and signed (prepareByKind) while `dispatching` committed.
 */
export function sendAndRecord(
  ctx: HubContext,
  rec: InvocationRecord,
  actor: string,
  target?: SendTarget,
  prepared?: PreparedCall | null,
): Promise<InvocationRecord> {
  const p = sendAndRecordOnce(ctx, rec, actor, target, prepared ?? null);
  ctx.inflight.add(p);
  void p.finally(() => ctx.inflight.delete(p)).catch(() => undefined);
  return p;
}

async function sendAndRecordOnce(
  ctx: HubContext,
  rec: InvocationRecord,
  actor: string,
  known: SendTarget | undefined,
  prepared: PreparedCall | null,
): Promise<InvocationRecord> {
  let result: SendResult | { kind: 'target_missing' } | { kind: 'store_unavailable' };
  const target = known ?? (await readTarget(ctx, rec));
  if (target === 'store_unavailable') {
    result = { kind: 'store_unavailable' };
  } else if (!target) {
    result = { kind: 'target_missing' };
  } else {
    try {
      result = await sendByKind(
        ctx,
        target,
        rec,
        {
          // a method, not an arrow: tsx's keepNames would name an arrow per call (defineProperty)
          onTaskCreated(taskId) {
            return recordTaskId(ctx, rec, taskId, actor);
          },
        },
        known ? prepared : null,
      );
    } catch (err) {
      ctx.logger.error(
        { invocation_id: rec.invocation_id, err: String(err) },
        'send raised; recording unknown',
      );
      result = { kind: 'no_response', reason: 'connection_lost', detail: 'the send failed unexpectedly' };
    }
    // Only requests that (may have) left count as dispatches.
    if (result.kind !== 'not_sent') ctx.metrics.count(rec.client_id, 'dispatches');
  }
  const at = ctx.now();
  const notSentTo: InvocationState = rec.approval_id !== null ? 'approved' : 'not_dispatched';
  const sent = result.kind === 'response' || result.kind === 'mcp_result' || result.kind === 'no_response';
  const { to, patch } =
    result.kind === 'target_missing'
      ? notSentOutcome(
          notSentTo,
          'not_sent_target_missing',
          'the system or authorization is no longer registered',
        )
      : result.kind === 'store_unavailable'
        ? notSentOutcome(
            notSentTo,
            'not_sent_store_unavailable',
            'the store could not be read just before sending',
          )
        : result.kind === 'not_sent'
          ? notSentOutcome(notSentTo, NOT_SENT_CODE[result.reason], result.detail)
          : result.kind === 'mcp_result'
            ? mcpResultOutcome(result, at.toISOString())
            : outcomeOf(result, at.toISOString());
  const res = await whenStoreReturns(ctx, 'the outcome of a dispatched call', () =>
    transitionInvocation(ctx, {
      invocation_id: rec.invocation_id,
      from: 'dispatching',
      to,
      at: at.toISOString(),
      patch,
      // A request that never left gives back its permit, budget and dispatch count (a refund); one
      // that left frees its permit. A call holding none (no task) has nothing to free: the store
      // sees that on the record and runs no permit statement (sql/ops/invocation-change.ts).
      release_permit: { now_ms: at.getTime(), refund: !sent },
      audit: {
        actor,
        kind: 'invocation.dispatched',
        detail: {
          outcome:
            result.kind === 'response'
              ? 'http_response'
              : result.kind === 'mcp_result'
                ? result.is_error
                  ? 'mcp_is_error'
                  : 'mcp_result'
                : result.kind === 'target_missing'
                  ? 'not_sent_target_missing'
                  : result.kind === 'store_unavailable'
                    ? 'not_sent_store_unavailable'
                    : result.kind === 'not_sent'
                      ? NOT_SENT_CODE[result.reason]
                      : NO_RESPONSE_CODE[result.reason],
          business_status: result.kind === 'response' ? result.status : null,
          request_sent: sent,
        },
      },
    }),
  );
  if (res.kind === 'stale') return recordLateOutcome(ctx, rec, res.current, to, patch, actor);
  return res.record;
}

/**
 * An MCP server accepted the call as a task: its id is saved at once, in the transaction that
 * records that answer, so recovery can ask `tasks/get` even if the Hub stops before the task ends.
 */
async function recordTaskId(
  ctx: HubContext,
  rec: InvocationRecord,
  taskId: string,
  actor: string,
): Promise<void> {
  const at = ctx.now().toISOString();
  await whenStoreReturns(ctx, 'the task id of a dispatched call', () =>
    transitionInvocation(ctx, {
      invocation_id: rec.invocation_id,
      from: 'dispatching',
      to: 'dispatching',
      at,
      patch: {
        remote_task_id: taskId,
        add_evidence: {
          checked_at: at,
          source: 'dispatch_response',
          outcome: 'inconclusive',
          http_status: null,
          evidence_digest: null,
          detail: `the MCP server accepted the call as task ${taskId}; its result is read from the task`,
        },
      },
      audit: { actor, kind: 'invocation.task_created', detail: { remote_task_id: taskId } },
    }),
  );
}

/** The system and authorization to send to; the store being unreachable means the call is not sent. */
async function readTarget(ctx: HubContext, rec: InvocationRecord) {
  try {
    const system = await ctx.store.getSystem(rec.system_id);
    const auth = await ctx.store.getAuthorization(rec.authorization_ref);
    return system && auth ? { system, auth } : null;
  } catch (err) {
    if (err instanceof StoreUnavailableError) return 'store_unavailable' as const;
    throw err;
  }
}

/**
 * The call left `dispatching` while its send was in progress: this instance's lease expired (it
 * could not renew it, e.g. its database was unreachable) and a sibling recovered the call as
 * `unknown`. The answer that arrived is still evidence: it settles the recovered call (or annotates
 * it when there was no answer or the request never left), exactly as a reconciliation would.
 */
async function recordLateOutcome(
  ctx: HubContext,
  rec: InvocationRecord,
  current: InvocationRecord | null,
  to: InvocationState,
  patch: InvocationPatch,
  actor: string,
): Promise<InvocationRecord> {
  if (!current || (current.state !== 'unknown' && current.state !== 'unverified')) {
    throw new Error(`invocation ${rec.invocation_id} left dispatching while its send was in progress`);
  }
  const res = await transitionInvocation(ctx, {
    invocation_id: rec.invocation_id,
    from: current.state,
    // a settled answer settles it; no answer, or a request that never left, annotates what is known
    to: to === 'succeeded' || to === 'failed' ? to : current.state,
    patch,
    audit: { actor, kind: 'invocation.late_response', detail: { recovered_as: current.state } },
  });
  return res.kind === 'stale' ? (res.current ?? current) : res.record;
}

/** The request never left: nothing reached the business system, so nothing is spent. */
function notSentOutcome(
  to: InvocationState,
  code: NotSentReasonCode,
  detail: string,
): { to: InvocationState; patch: InvocationPatch } {
  return {
    to,
    patch: {
      dispatch: 'none',
      permit_id: null,
      reason_code: code,
      reason_message: `the request never left the Hub (${detail}); nothing was sent and nothing was spent`,
    },
  };
}

function outcomeOf(
  result: Exclude<SendResult, { kind: 'not_sent' } | { kind: 'mcp_result' }>,
  at: string,
): { to: Extract<InvocationState, 'succeeded' | 'failed' | 'unknown'>; patch: InvocationPatch } {
  if (result.kind === 'no_response') {
    const evidence: ReconciliationEvidence = {
      checked_at: at,
      source: 'dispatch_response',
      outcome: 'inconclusive',
      http_status: null,
      evidence_digest: null,
      detail: `no response from the business system (${result.reason})`,
    };
    return {
      to: 'unknown',
      patch: {
        dispatch: 'attempted',
        reason_code: NO_RESPONSE_CODE[result.reason],
        reason_message: result.detail,
        add_evidence: evidence,
      },
    };
  }
  const digest = sha256Hex(canonicalJson(result.body ?? null));
  // the answer's fields written out in each literal below: a literal that spreads an object and then
  // adds keys costs 1-2 µs on this V8 (see transition.ts)
  const body = result.body ?? null;
  if (result.status >= 200 && result.status < 300) {
    return {
      to: 'succeeded',
      patch: {
        result: body,
        result_truncated: result.truncated,
        business_status: result.status,
        dispatch: 'confirmed',
        reason_code: null,
        reason_message: null,
        add_evidence: {
          checked_at: at,
          source: 'dispatch_response',
          outcome: 'succeeded',
          http_status: result.status,
          evidence_digest: digest,
          detail: 'the business system confirmed the call',
        },
      },
    };
  }
  if (result.status >= 400 && result.status < 500) {
    return {
      to: 'failed',
      patch: {
        result: body,
        result_truncated: result.truncated,
        business_status: result.status,
        dispatch: 'confirmed',
        reason_code: 'business_rejected',
        reason_message: `the business system rejected the call (HTTP ${result.status})`,
        add_evidence: {
          checked_at: at,
          source: 'dispatch_response',
          outcome: 'failed',
          http_status: result.status,
          evidence_digest: digest,
          detail: 'the business system rejected the call',
        },
      },
    };
  }
  return {
    to: 'unknown',
    patch: {
      result: body,
      result_truncated: result.truncated,
      business_status: result.status,
      dispatch: 'attempted',
      reason_code: 'business_server_error',
      reason_message: `the business system answered HTTP ${result.status}; it may or may not have committed the call`,
      add_evidence: {
        checked_at: at,
        source: 'dispatch_response',
        outcome: 'inconclusive',
        http_status: result.status,
        evidence_digest: digest,
        detail: 'server error: the outcome needs checking',
      },
    },
  };
}
