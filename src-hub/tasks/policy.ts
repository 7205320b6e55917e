/**
 * The permit policy: a pure function of the task snapshot read inside the dispatch transaction.
 * Order of checks: cancelled, expired, paused, write budget, in-flight, rate window.
 */
import type { RateWindow } from '../../src-shared/hub-api.js';
import type { TaskRefusalCode } from '../../src-shared/states.js';
import type { PermitDecision, PermitEvaluator } from '../store/types.js';

export const WINDOW_MS: Readonly<Record<RateWindow, number>> = {
  '1s': 1_000,
  '1m': 60_000,
  '1h': 3_600_000,
  '1d': 86_400_000,
};

const refuse = (code: TaskRefusalCode, message: string, retry_after_ms: number | null = null): PermitDecision => ({
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
  if (task.state === 'cancelled') return refuse('task_cancelled', 'the task is cancelled; no further calls are dispatched');
  if (isExpired(b.expires_at, nowMs)) return refuse('task_expired', `the task expired at ${b.expires_at}`);
  if (task.state === 'paused') return refuse('task_paused', 'the task is paused; no further calls are dispatched until it continues');
  if (effect === 'write' && task.writes_used >= b.write_budget) {
    return refuse('budget_exhausted', `the task's write budget (${b.write_budget}) is spent`);
  }
  if (snap.in_flight >= b.in_flight_limit) {
    return refuse('in_flight_limit', `the task already has ${snap.in_flight} calls in flight (limit ${b.in_flight_limit})`);
  }
  if (b.rate_limit && snap.used_in_window >= b.rate_limit.count) {
    return refuse(
      'rate_limited',
      `the task's rate limit (${b.rate_limit.count} per ${b.rate_limit.window}) is reached`,
      Math.max(1, snap.window_end_ms - nowMs),
    );
  }
  return { ok: true };
};
