// A conversation's header names each scope member's system: from the agent list while the system
// is listed, else from the name the desk kept when the conversation was made (`system_name`) — a
// system retired since is gone from the agent list — else from its task's served systems; marked
// "retired" (in the operator's language, from the state's code) when the task says so or the
// conversation is blocked by that member's retire. With no known name the id stays (nothing is
// invented), as does the ref after a blocked conversation's reason.
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import React from 'react';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { TaskView } from '../../src-shared/hub-api.js';
import type { BailingApi } from '../../src-shared/ipc/api.js';
import type { ScopeMemberView, SessionSummary } from '../../src-shared/ipc/views.js';
import { setApi } from '../../src-renderer/src/api-client.js';
import { ConversationView } from '../../src-renderer/src/components/ConversationView.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useSessions } from '../../src-renderer/src/store/sessions.js';
import { useTasks } from '../../src-renderer/src/store/tasks.js';
import { AGENT_LIST_WITHOUT_SHOP_A } from './support/agent-list.js';

const AGENT_LIST = AGENT_LIST_WITHOUT_SHOP_A;

beforeAll(() => {
  // the main process's answers, at the contract boundary; anything else the view asks for never answers
  const answers: Partial<BailingApi> = {
    listAuthorizations: () => Promise.resolve({ ok: true, value: { authorizations: AGENT_LIST } }),
  };
  setApi(
    new Proxy(answers, {
      get: (target, name: string) =>
        (target as Record<string, unknown>)[name] ?? (() => new Promise(() => undefined)),
    }) as BailingApi,
  );
});
afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
  useSessions.setState({ sessions: [], currentId: null, conversations: {} });
  useTasks.setState({ tasks: {}, selectedId: null, timeline: [] });
});

const SHOP_A: ScopeMemberView = {
  authorization_ref: 'auth-shop-a',
  system_id: 'shop-a',
  system_name: 'Shop A (homeware)',
  account: 'shop-a-operator',
};
const SHOP_B: ScopeMemberView = {
  authorization_ref: 'auth-shop-b',
  system_id: 'shop-b',
  system_name: 'Shop B (old name)',
  account: 'shop-b-operator',
};

function show(members: ScopeMemberView[], over: Partial<SessionSummary> = {}): void {
  const session: SessionSummary = {
    session_id: 's1',
    title: 'Two shops',
    created_at: '2026-12-02T09:00:00.000Z',
    updated_at: '2026-12-02T09:00:00.000Z',
    task_id: null,
    members,
    availability: 'blocked',
    availability_reason: 'system_retired',
    availability_ref: 'auth-shop-a',
    turn_running: false,
    ...over,
  };
  useSessions.setState({
    sessions: [session],
    currentId: 's1',
    conversations: { s1: { items: [], storage: null, loaded: true } },
  });
  render(<ConversationView />);
}

const scopeMembers = () => screen.getAllByTestId('scope-member');
const blockedLine = () => screen.getByRole('alert');

describe("a conversation's scope names its systems", () => {
  it('a member retired since by the name kept at creation, marked retired in each language; a listed one by its current name', async () => {
    show([SHOP_A, SHOP_B]);
    await waitFor(() => expect(scopeMembers()[1]?.textContent).toContain('Shop B (coffee gear)'));
    const [a, b] = scopeMembers();
    expect(a?.textContent).toContain('Shop A (homeware) (shop-a-operator)');
    expect(a?.dataset.systemState).toBe('retired');
    const mark = within(a!).getByTestId('system-state');
    expect(mark.dataset.code).toBe('retired');
    expect(mark.textContent).toBe(en['systemState.retired']);
    expect(mark.title).toBe(en['systemState.retiredUndated']);
    expect(b?.dataset.systemState).toBe('in_service');
    expect(within(b!).queryByTestId('system-state')).toBeNull();
    // the blocked line names the member by its system, not its ref
    expect(blockedLine().textContent).toContain('Shop A (homeware)');
    expect(blockedLine().textContent).not.toContain('auth-shop-a');

    act(() => useApp.setState({ lang: 'zh' }));
    expect(within(scopeMembers()[0]!).getByTestId('system-state').textContent).toBe(
      zh['systemState.retired'],
    );
    expect(within(scopeMembers()[0]!).getByTestId('system-state').title).toBe(
      zh['systemState.retiredUndated'],
    );
  });

  it('blocked for another reason (authorization_missing: the retire is not known), the kept name shows unmarked', () => {
    show([SHOP_A], { availability_reason: 'authorization_missing' });
    expect(scopeMembers()[0]?.textContent).toContain('Shop A (homeware)');
    expect(scopeMembers()[0]?.dataset.systemState).toBe('in_service');
    expect(screen.queryByTestId('system-state')).toBeNull();
    expect(blockedLine().textContent).toContain('Shop A (homeware)');
  });

  it('under a task, the retire and its date come from the systems the Hub served with the task', () => {
    const retiredAt = '2026-12-02T10:00:00.000Z';
    useTasks.setState({
      tasks: {
        task_1: {
          task_id: 'task_1',
          title: 'Shop A only',
          boundary: { authorizations: [], constraints: [] },
          systems: [
            {
              authorization_ref: 'auth-shop-a',
              system_id: 'shop-a',
              system_name: 'Shop A (served)',
              system_kind: 'mcp',
              system_retired_at: retiredAt,
            },
          ],
        } as unknown as TaskView,
      },
    });
    show([{ ...SHOP_A, system_name: null }], {
      task_id: 'task_1',
      availability_reason: 'authorization_missing',
    });
    const [a] = scopeMembers();
    expect(a?.textContent).toContain('Shop A (served)');
    expect(a?.dataset.systemState).toBe('retired');
    expect(within(a!).getByTestId('system-state').title).toContain(new Date(retiredAt).toLocaleString());
  });

  it('with no known name (an older archive, not listed, no task) the id stays, and the ref on the blocked line', () => {
    show([{ ...SHOP_A, system_name: null }]);
    expect(scopeMembers()[0]?.textContent).toContain('shop-a (shop-a-operator)');
    expect(blockedLine().textContent).toContain('auth-shop-a');
    // still known retired from the conversation's own reason
    expect(scopeMembers()[0]?.dataset.systemState).toBe('retired');
  });
});
