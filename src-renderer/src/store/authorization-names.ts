/**
 * Authorization ref -> the business system's name ("Shop A (homeware)") and kind (`http` / `mcp`,
 * as the Hub serves it), read once from the Hub when first needed and again after Settings added
 * an MCP server (`reloadAuthorizations`). The agent list leaves out a retired system's
 * authorizations: a task names those from its own `systems` (`useTaskSystems`), a conversation's
 * scope from its task's or from the names kept when it was made (`useScopeSystems`).
 */
import { useEffect } from 'react';
import { create } from 'zustand';
import type { TaskSystem, TaskView } from '../../../src-shared/hub-api.js';
import type { ScopeMemberView, SessionSummary } from '../../../src-shared/ipc/views.js';
import { systemServiceState, type SystemKind, type SystemServiceState } from '../../../src-shared/states.js';
import { call } from '../api-client.js';

const useNames = create<{
  names: Record<string, string>;
  kinds: Record<string, SystemKind>;
  loaded: boolean;
}>(() => ({
  names: {},
  kinds: {},
  loaded: false,
}));
let loading: Promise<void> | null = null;

function load(): Promise<void> {
  loading ??= call('listAuthorizations', {})
    .then((r) =>
      useNames.setState({
        names: Object.fromEntries(r.authorizations.map((a) => [a.authorization_ref, a.system_name])),
        // An older Hub does not say: its systems are all HTTP.
        kinds: Object.fromEntries(
          r.authorizations.map((a) => [a.authorization_ref, a.system_kind ?? 'http']),
        ),
        loaded: true,
      }),
    )
    .catch(() => {
      loading = null; // the Hub may be back later: ask again next time
    });
  return loading;
}

/** Reads the authorizations again (a server was added; its authorization is new). */
export function reloadAuthorizations(): Promise<void> {
  loading = null;
  return load();
}

export function useAuthorizationNames(): Record<string, string> {
  const { names, loaded } = useNames();
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded]);
  return names;
}

/** Authorization ref -> its system's kind; a ref not (yet) known is absent (no badge is guessed). */
export function useAuthorizationKinds(): Record<string, SystemKind> {
  const { kinds, loaded } = useNames();
  useEffect(() => {
    if (!loaded) void load();
  }, [loaded]);
  return kinds;
}

/** How a task names the system of one of its authorizations. */
export interface TaskSystemNaming {
  /** The system's name; the authorization ref when nothing names it. */
  name: string;
  kind: SystemKind | null;
  state: SystemServiceState;
  retired_at: string | null;
}

const servedNaming = (served: TaskSystem): TaskSystemNaming => ({
  name: served.system_name,
  kind: served.system_kind,
  state: systemServiceState(served.system_retired_at),
  retired_at: served.system_retired_at,
});

/**
 * Authorization ref -> its system as a task names it: from the task's own `systems` (the Hub
 * serves them, a retired system's too), else — a view of an older Hub — from the agent list, which
 * does not carry a retired system, else the ref itself.
 */
export function useTaskSystems(task: Pick<TaskView, 'systems'>): (ref: string) => TaskSystemNaming {
  const names = useAuthorizationNames();
  const kinds = useAuthorizationKinds();
  return (ref) => {
    const served = task.systems?.find((s) => s.authorization_ref === ref);
    if (served) return servedNaming(served);
    return { name: names[ref] ?? ref, kind: kinds[ref] ?? null, state: 'in_service', retired_at: null };
  };
}

/**
 * A conversation's scope member -> its system: from the systems its task's view names (a retired
 * system's too), else the agent list (current names), else the name the desk kept when the
 * conversation was made (`system_name`: a system retired since is gone from the agent list), else
 * `fallback` — nothing invented. Marked retired when the task's view says so or the conversation is
 * blocked by that member's retire (`system_retired`); the date is known only from the task.
 */
export function useScopeSystems(
  session: Pick<SessionSummary, 'availability_reason' | 'availability_ref'>,
  task: Pick<TaskView, 'systems'> | null,
): (member: ScopeMemberView, fallback: string) => TaskSystemNaming {
  const names = useAuthorizationNames();
  const kinds = useAuthorizationKinds();
  return (member, fallback) => {
    const ref = member.authorization_ref;
    const served = task?.systems?.find((s) => s.authorization_ref === ref);
    if (served) return servedNaming(served);
    const retired = session.availability_reason === 'system_retired' && session.availability_ref === ref;
    return {
      name: names[ref] ?? member.system_name ?? fallback,
      kind: kinds[ref] ?? null,
      state: retired ? 'retired' : 'in_service',
      retired_at: null,
    };
  };
}
