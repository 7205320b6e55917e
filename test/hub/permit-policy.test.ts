// The pure permit policy: a permit is granted exactly when every limit has room, and a refusal
// names the first limit that is exhausted, in a fixed order.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evaluateEnrollment } from '../../src-hub/tasks/enrollment.js';
import { evaluateOperationRate, evaluatePermit } from '../../src-hub/tasks/policy.js';
import type { PermitSnapshot, TaskRecord } from '../../src-hub/store/types.js';

const NOW = Date.parse('2026-11-29T12:00:30.000Z');

const snapshot = fc.record({
  state: fc.constantFrom('active', 'paused', 'cancelled' as const),
  expired: fc.boolean(),
  budget: fc.integer({ min: 0, max: 5 }),
  used: fc.integer({ min: 0, max: 6 }),
  limit: fc.integer({ min: 1, max: 4 }),
  inFlight: fc.integer({ min: 0, max: 5 }),
  rate: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
  usedInWindow: fc.integer({ min: 0, max: 5 }),
  effect: fc.constantFrom('read', 'write' as const),
});

type Snap = typeof snapshot extends fc.Arbitrary<infer T> ? T : never;

function build(s: Snap): PermitSnapshot {
  const task: TaskRecord = {
    task_id: 't',
    client_id: 'c',
    title: 't',
    state: s.state as TaskRecord['state'],
    boundary: {
      authorizations: [{ authorization_ref: 'a', tools: ['x'] }],
      write_budget: s.budget,
      in_flight_limit: s.limit,
      rate_limit: s.rate === null ? null : { count: s.rate, window: '1m' },
      constraints: [],
      expires_at: s.expired ? new Date(NOW - 1).toISOString() : new Date(NOW + 60_000).toISOString(),
    },
    writes_used: s.used,
    permits_granted: 0,
    created_at: '',
    updated_at: '',
    paused_at: null,
    cancelled_at: null,
  };
  return {
    task,
    in_flight: s.inFlight,
    used_in_window: s.usedInWindow,
    window_start_ms: NOW - 30_000,
    window_end_ms: NOW + 30_000,
  };
}

describe('permit policy', () => {
  it('grants exactly when every limit has room; refusals name the first exhausted limit', () => {
    fc.assert(
      fc.property(snapshot, (s) => {
        const d = evaluatePermit(build(s), s.effect as 'read' | 'write', NOW);
        const expected =
          s.state === 'cancelled'
            ? 'task_cancelled'
            : s.expired
              ? 'task_expired'
              : s.state === 'paused'
                ? 'task_paused'
                : s.effect === 'write' && s.used >= s.budget
                  ? 'budget_exhausted'
                  : s.inFlight >= s.limit
                    ? 'in_flight_limit'
                    : s.rate !== null && s.usedInWindow >= s.rate
                      ? 'rate_limited'
                      : null;
        if (expected === null) expect(d).toEqual({ ok: true });
        else {
          expect(d.ok).toBe(false);
          if (!d.ok) {
            expect(d.code).toBe(expected);
            expect(d.retry_after_ms).toBe(expected === 'rate_limited' ? 30_000 : null);
          }
        }
      }),
      { numRuns: 500 },
    );
  });

  it('the operation rate limit uses the same rule: room below count, else rate_limited until the window ends', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 10 }),
        fc.integer({ min: 0, max: 12 }),
        fc.integer({ min: 1, max: 59_999 }),
        (count, used, left) => {
          const d = evaluateOperationRate(
            {
              authorization_ref: 'a',
              tool: 'x',
              limit: { count, window: '1m' },
              used_in_window: used,
              window_end_ms: NOW + left,
            },
            NOW,
          );
          if (used < count) expect(d).toEqual({ ok: true });
          else expect(d).toMatchObject({ ok: false, code: 'rate_limited', retry_after_ms: left });
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('enrollment rule', () => {
  it('a session that is not enrolled may call with or without a task; an enrolled one only with its task', () => {
    const session = { agent_session_id: 's' };
    expect(evaluateEnrollment(null, { ...session, task_id: null })).toEqual({ ok: true });
    expect(evaluateEnrollment(null, { ...session, task_id: 't1' })).toEqual({ ok: true });
    expect(evaluateEnrollment('t1', { ...session, task_id: 't1' })).toEqual({ ok: true });
    expect(evaluateEnrollment('t1', { ...session, task_id: null })).toMatchObject({
      ok: false,
      code: 'task_required',
      retry_after_ms: null,
    });
    expect(evaluateEnrollment('t1', { ...session, task_id: 't2' })).toMatchObject({
      ok: false,
      code: 'task_required',
    });
  });
});
