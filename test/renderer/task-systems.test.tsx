// A task names the systems of its boundary from the systems the Hub served with it — a retired
// system's too, which the agent list no longer carries — marked "retired" in the operator's
// language (from the state's code); a view of an older Hub, without systems, is named from the
// agent list. The task store keeps the served systems when a view from the live stream (which
// names none) replaces the task.
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import React from 'react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TaskSystem, TaskView } from '../../src-shared/hub-api.js';
import type { BailingApi } from '../../src-shared/ipc/api.js';
import { INVOCATION_STATES, SYSTEM_SERVICE_STATES } from '../../src-shared/states.js';
import { setApi } from '../../src-renderer/src/api-client.js';
import { TaskDetail } from '../../src-renderer/src/components/TaskPanel.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useTasks } from '../../src-renderer/src/store/tasks.js';
import { AGENT_LIST_WITHOUT_SHOP_A } from './support/agent-list.js';

const AGENT_LIST = AGENT_LIST_WITHOUT_SHOP_A;

beforeAll(() => {
  // the main process's answers, at the contract boundary (the timeline is not under test here)
  setApi({
    listAuthorizations: () => Promise.resolve({ ok: true, value: { authorizations: AGENT_LIST } }),
    getTaskTimeline: () => Promise.resolve({ ok: true, value: { entries: [] } }),
  } as unknown as BailingApi);
});
afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
  useTasks.setState({ tasks: {}, selectedId: null, timeline: [] });
});

const ZERO = Object.fromEntries(INVOCATION_STATES.map((s) => [s, 0])) as TaskView['counts'];
const RETIRED_AT = '2026-12-02T10:00:00.000Z';
const SHOP_A: TaskSystem = {
  authorization_ref: 'auth-shop-a',
  system_id: 'shop-a',
  system_name: 'Shop A (homeware)',
  system_kind: 'mcp',
  system_retired_at: RETIRED_AT,
};
const SHOP_B: TaskSystem = {
  authorization_ref: 'auth-shop-b',
  system_id: 'shop-b',
  system_name: 'Shop B (coffee gear)',
  system_kind: 'http',
  system_retired_at: null,
};

function task(systems: TaskSystem[] | undefined, updatedAt = '2026-12-02T09:00:00.000Z'): TaskView {
  return {
    task_id: 'task_1',
    client_id: 'desk',
    title: 'Two shops',
    state: 'active',
    expired: false,
    boundary: {
      authorizations: [
        { authorization_ref: 'auth-shop-a', tools: ['get_product'] },
        { authorization_ref: 'auth-shop-b', tools: ['get_product'] },
      ],
      write_budget: 1,
      in_flight_limit: 1,
      rate_limit: null,
      constraints: [],
      expires_at: null,
    },
    writes_used: 0,
    writes_left: 1,
    in_flight: 0,
    rate: null,
    counts: ZERO,
    permits_granted: 0,
    unresolved: [],
    unresolved_total: 0,
    created_at: '2026-12-02T09:00:00.000Z',
    updated_at: updatedAt,
    paused_at: null,
    cancelled_at: null,
    ...(systems ? { systems } : {}),
  };
}

const boundarySystems = () => screen.getAllByTestId('task-boundary-system');

describe('a task names its systems', () => {
  it('a retired system by its name, marked retired from the code in each language; its kind from the Hub', () => {
    render(<TaskDetail task={task([SHOP_A, SHOP_B])} />);
    const [a, b] = boundarySystems();
    expect(a?.textContent).toContain('Shop A (homeware)');
    expect(a?.textContent).not.toContain('auth-shop-a');
    expect(a?.dataset.systemState).toBe('retired');
    const mark = within(a!).getByTestId('system-state');
    expect(mark.dataset.code).toBe('retired');
    expect(mark.textContent).toBe(en['systemState.retired']);
    expect(mark.title).toContain(new Date(RETIRED_AT).toLocaleString());
    expect(within(a!).getByTestId('system-kind').dataset.kind).toBe('mcp');
    expect(b?.textContent).toContain('Shop B (coffee gear)');
    expect(b?.dataset.systemState).toBe('in_service');
    expect(within(b!).queryByTestId('system-state')).toBeNull();

    act(() => useApp.setState({ lang: 'zh' }));
    expect(within(boundarySystems()[0]!).getByTestId('system-state').textContent).toBe(
      zh['systemState.retired'],
    );
  });

  it('every service state has words in both languages', () => {
    for (const state of SYSTEM_SERVICE_STATES) {
      expect(en[`systemState.${state}`]).toBeTruthy();
      expect(zh[`systemState.${state}`]).toBeTruthy();
      expect(zh[`systemState.${state}`]).not.toBe(en[`systemState.${state}`]);
    }
  });

  it('a view of an older Hub (no systems): names from the agent list, the ref where it has none', async () => {
    render(<TaskDetail task={task(undefined)} />);
    await waitFor(() => expect(boundarySystems()[1]?.textContent).toContain('Shop B (coffee gear)'));
    expect(boundarySystems()[0]?.textContent).toContain('auth-shop-a');
    expect(screen.queryByTestId('system-state')).toBeNull();
  });
});

describe('the task store', () => {
  it('keeps the served systems when a stream view (no systems) replaces the task, and takes newer ones from a late served view', () => {
    const s = useTasks.getState();
    s.applyTask(task([{ ...SHOP_A, system_retired_at: null }, SHOP_B]));
    s.applyTask(task(undefined, '2026-12-02T09:05:00.000Z'));
    expect(useTasks.getState().tasks.task_1?.updated_at).toBe('2026-12-02T09:05:00.000Z');
    expect(useTasks.getState().tasks.task_1?.systems?.[0]?.system_retired_at).toBeNull();
    // a served view read before that stream view: older accounting, but the systems as they are now
    s.applyTask(task([SHOP_A, SHOP_B], '2026-12-02T09:01:00.000Z'));
    expect(useTasks.getState().tasks.task_1?.updated_at).toBe('2026-12-02T09:05:00.000Z');
    expect(useTasks.getState().tasks.task_1?.systems).toEqual([SHOP_A, SHOP_B]);
    // an older stream view changes nothing
    s.applyTask(task(undefined, '2026-12-02T09:02:00.000Z'));
    expect(useTasks.getState().tasks.task_1?.systems).toEqual([SHOP_A, SHOP_B]);
    expect(useTasks.getState().tasks.task_1?.updated_at).toBe('2026-12-02T09:05:00.000Z');
  });
});
