/**
 * The permit policy: a pure function of the task snapshot read inside the dispatch transaction.
 * Order of checks: cancelled, expired, paused, write budget, in-flight, rate window.
 * The operation's own declared rate limit (evaluateOperationRate) is checked after it, in the
 * same transaction (store/sql/ops/invocation-change.ts).
 */
import type { RateWindow } from '../../src-shared/hub-api.js';
import type { TaskRefusalCode } from '../../src-shared/states.js';
import type { OperationRateEvaluator, PermitDecision, PermitEvaluator } from '../store/types.js';

export const WINDOW_MS: Readonly<Record<RateWindow, number>> = {
  '1s': 1_000,
  '1m': 60_000,
  '1h': 3_600_000,
  '1d': 86_400_000,
};

const refuse = (
  code: TaskRefusalCode,
  message: string,
  retry_after_ms: number | null = null,
): PermitDecision => ({
  ok: false,
  code,
  message,
  retry_after_ms,
});

export function isExpired(expiresAt: string | null, nowMs: number): boolean {
  return expiresAt !== null && Date.parse(expiresAt) <= nowMs;
}

export const evaluatePermit: PermitEvaluator = (snap, effect, nowMs) => {
  const { task } = snap;
  const b = task.boundary;
  if (task.state === 'cancelled')
    return refuse('task_cancelled', 'the task is cancelled; no further calls are dispatched');
  if (isExpired(b.expires_at, nowMs)) return refuse('task_expired', `the task expired at ${b.expires_at}`);
  if (task.state === 'paused')
    return refuse('task_paused', 'the task is paused; no further calls are dispatched until it continues');
  if (effect === 'write' && task.writes_used >= b.write_budget) {
    return refuse('budget_exhausted', `the task's write budget (${b.write_budget}) is spent`);
  }
  if (snap.in_flight >= b.in_flight_limit) {
    return refuse(
      'in_flight_limit',
      `the task already has ${snap.in_flight} calls in flight (limit ${b.in_flight_limit})`,
    );
  }
  if (b.rate_limit) {
    const limited = rateWindowRefusal(
      b.rate_limit,
      snap.used_in_window,
      snap.window_end_ms,
      nowMs,
      "the task's rate limit",
    );
    if (limited) return limited;
  }
  return { ok: true };
};

/**
 * The one rate limiter: fixed windows aligned to the epoch (store/sql/window.ts), counting
 * permits granted since the window started. Used for a task's rate limit and for the business
 * system's declared per-operation limit. Null when the window still has room.
 */
export function rateWindowRefusal(
  limit: { count: number; window: RateWindow },
  usedInWindow: number,
  windowEndMs: number,
  nowMs: number,
  what: string,
): Extract<PermitDecision, { ok: false }> | null {
  if (usedInWindow < limit.count) return null;
  return {
    ok: false,
    code: 'rate_limited' satisfies TaskRefusalCode,
    message: `${what} (${limit.count} per ${limit.window}) is reached`,
    retry_after_ms: Math.max(1, windowEndMs - nowMs),
  };
}

/**
 * The business system's declared limit (ACC execution.rate_limit) for one account: dispatches of
 * this tool through this authorization in the current window.
 */
export const evaluateOperationRate: OperationRateEvaluator = (snap, nowMs) =>
  rateWindowRefusal(
    snap.limit,
    snap.used_in_window,
    snap.window_end_ms,
    nowMs,
    `the rate limit ${snap.tool} declares for one account (authorization ${snap.authorization_ref})`,
  ) ?? { ok: true };
