// A task's view lists only its oldest unresolved calls (TASK_VIEW_UNRESOLVED_LIMIT); the task
// detail says how many more there are, in the operator's language, and says nothing when the list
// is complete.
// @vitest-environment jsdom
import { act, cleanup, render, screen } from '@testing-library/react';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { TASK_VIEW_UNRESOLVED_LIMIT, type TaskView } from '../../src-shared/hub-api.js';
import { INVOCATION_STATES } from '../../src-shared/states.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { TaskDetail } from '../../src-renderer/src/components/TaskPanel.js';
import { useApp } from '../../src-renderer/src/store/app.js';

afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
});

const ZERO = Object.fromEntries(INVOCATION_STATES.map((s) => [s, 0])) as TaskView['counts'];

function task(listed: number, total: number | undefined): TaskView {
  return {
    task_id: 'task_1',
    client_id: 'c',
    title: 'Many calls',
    state: 'active',
    expired: false,
    boundary: {
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product'] }],
      write_budget: 500,
      in_flight_limit: 5,
      rate_limit: null,
      constraints: [],
      expires_at: null,
    },
    writes_used: total ?? listed,
    writes_left: 500 - (total ?? listed),
    in_flight: 0,
    rate: null,
    counts: { ...ZERO, unknown: total ?? listed },
    permits_granted: total ?? listed,
    unresolved: Array.from({ length: listed }, (_, i) => ({
      invocation_id: `inv_${String(i).padStart(8, '0')}`,
      state: 'unknown' as const,
      tool: 'update_product',
      authorization_ref: 'auth-shop-a',
      updated_at: '2026-01-01T00:00:00.000Z',
    })),
    ...(total === undefined ? {} : { unresolved_total: total }),
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    paused_at: null,
    cancelled_at: null,
  };
}

describe('TaskDetail: the unresolved list of a large task', () => {
  it('lists the oldest and says how many more there are (en and zh)', () => {
    render(<TaskDetail task={task(TASK_VIEW_UNRESOLVED_LIMIT, 130)} />);
    expect(screen.getByTestId('unresolved-more').textContent).toBe(
      en['task.unresolvedMore'].replace('{count}', '30'),
    );
    act(() => useApp.setState({ lang: 'zh' }));
    expect(screen.getByTestId('unresolved-more').textContent).toBe(
      zh['task.unresolvedMore'].replace('{count}', '30'),
    );
  });

  it('says nothing more when the list is complete, or from an older Hub without a total', () => {
    const { rerender } = render(<TaskDetail task={task(3, 3)} />);
    expect(screen.queryByTestId('unresolved-more')).toBeNull();
    rerender(<TaskDetail task={task(3, undefined)} />);
    expect(screen.queryByTestId('unresolved-more')).toBeNull();
    expect(screen.getAllByText(/inv_0000000/)).toHaveLength(3);
  });

  it('shows the write budget once, beside its meter (not again in the boundary)', () => {
    render(<TaskDetail task={task(3, 3)} />);
    const words = en['task.writes']
      .replace('{used}', '3')
      .replace('{left}', '497')
      .replace('{budget}', '500');
    expect(screen.getByTestId('task-budget').textContent).toBe(words);
    expect(screen.getAllByText(words)).toHaveLength(1);
    expect(screen.queryByTestId('task-boundary-budget')).toBeNull();
    expect(screen.getByTestId('task-boundary').textContent).toContain('update_product');
  });
});
