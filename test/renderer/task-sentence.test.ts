// The exact sentence for a task's state, derived from the TaskView alone.
import { describe, expect, it } from 'vitest';
import { TASK_VIEW_UNRESOLVED_LIMIT, type TaskView } from '../../src-shared/hub-api.js';
import { INVOCATION_STATES } from '../../src-shared/states.js';
import { translator } from '../../src-renderer/src/i18n/index.js';
import { taskSentence } from '../../src-renderer/src/logic/task-sentence.js';

const en = translator('en');
const zh = translator('zh');

const ZERO = Object.fromEntries(INVOCATION_STATES.map((s) => [s, 0])) as TaskView['counts'];
const counts = (c: Partial<TaskView['counts']>): TaskView['counts'] => ({ ...ZERO, ...c });

function task(over: Partial<TaskView> = {}): TaskView {
  return {
    task_id: 'task_1',
    client_id: 'c',
    title: 'Three products',
    state: 'active',
    expired: false,
    boundary: {
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
      write_budget: 6,
      in_flight_limit: 2,
      rate_limit: null,
      constraints: [],
      expires_at: null,
    },
    writes_used: 0,
    writes_left: 6,
    in_flight: 0,
    rate: null,
    counts: ZERO,
    permits_granted: 0,
    unresolved: [],
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    paused_at: null,
    cancelled_at: null,
    ...over,
  };
}

describe('taskSentence', () => {
  it("reads the design's example exactly: paused with one call whose result is unknown", () => {
    const t = task({
      state: 'paused',
      writes_used: 2,
      writes_left: 4,
      counts: counts({ succeeded: 1, unknown: 1, not_dispatched: 1 }),
      unresolved: [
        {
          invocation_id: 'inv_b',
          state: 'unknown',
          tool: 'update_product',
          authorization_ref: 'auth-shop-a',
          updated_at: 'x',
        },
      ],
    });
    expect(taskSentence(t, en)).toBe('Further dispatch is paused. One earlier request still needs checking.');
  });

  it('counts several open calls, most urgent first', () => {
    const t = task({
      state: 'paused',
      counts: counts({ unknown: 2, awaiting_approval: 1, succeeded: 4 }),
      unresolved: [
        { invocation_id: 'a', state: 'unknown', tool: 't', authorization_ref: 'r', updated_at: 'x' },
        { invocation_id: 'b', state: 'unknown', tool: 't', authorization_ref: 'r', updated_at: 'x' },
        {
          invocation_id: 'c',
          state: 'awaiting_approval',
          tool: 't',
          authorization_ref: 'r',
          updated_at: 'x',
        },
      ],
    });
    expect(taskSentence(t, en)).toBe(
      'Further dispatch is paused. 2 earlier requests still need checking. One call is awaiting approval.',
    );
  });

  it('counts open calls from the counts, not the unresolved list (which holds only the oldest ones)', () => {
    const listed = Array.from({ length: TASK_VIEW_UNRESOLVED_LIMIT }, (_, i) => ({
      invocation_id: `inv_${i}`,
      state: 'unknown' as const,
      tool: 't',
      authorization_ref: 'r',
      updated_at: 'x',
    }));
    const t = task({
      state: 'paused',
      counts: counts({ unknown: 250 }),
      unresolved: listed,
      unresolved_total: 250,
    });
    expect(taskSentence(t, en)).toBe('Further dispatch is paused. 250 earlier requests still need checking.');
  });

  it('says what an active, a spent, an expired and a cancelled task allow', () => {
    expect(taskSentence(task(), en)).toBe('Dispatch is allowed: 6 of 6 writes left.');
    expect(taskSentence(task({ writes_used: 6, writes_left: 0 }), en)).toBe(
      'The write budget is spent: further writes are refused.',
    );
    expect(taskSentence(task({ expired: true }), en)).toBe(
      'This task has expired: nothing further will be dispatched. Nothing is waiting.',
    );
    expect(taskSentence(task({ state: 'cancelled', counts: counts({ approved: 1 }) }), en)).toBe(
      'This task is cancelled: nothing further will be dispatched, and completed work is not undone. One approved call has not run yet.',
    );
    expect(taskSentence(task({ state: 'paused' }), en)).toBe(
      'Further dispatch is paused. Nothing is waiting.',
    );
  });

  it('is translated into Simplified Chinese', () => {
    expect(taskSentence(task({ state: 'paused', counts: counts({ unknown: 1 }) }), zh)).toBe(
      '后续派发已暂停。 还有一个先前的请求需要核查。',
    );
  });
});
