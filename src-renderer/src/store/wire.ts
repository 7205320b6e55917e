/**
 * Connects main's events to the stores: live updates only, no polling loops. When the Hub comes
 * back, the views that depend on it are read once again.
 */
import { createCoalescer } from '../../../src-shared/coalesce.js';
import type { BailingApi } from '../../../src-shared/ipc/api.js';
import { useApp } from './app.js';
import { useApprovals } from './approvals.js';
import { useSessions } from './sessions.js';
import { useTasks } from './tasks.js';
import { useUnresolved } from './unresolved.js';

const quiet = (p: Promise<unknown>) => {
  p.catch(() => {});
};

export function wireEvents(api: BailingApi): () => void {
  // A burst of task events (a replay after a reconnect) re-reads the selected task's timeline twice, not per event.
  const timeline = createCoalescer<string>(() => quiet(useTasks.getState().loadTimeline()), 150);
  const offs = [
    api.onConversationItem((e) => useSessions.getState().applyItem(e.session_id, e.item)),
    api.onTurnState((e) => useSessions.getState().applyTurn(e.session_id, e.state === 'running')),
    api.onSessionChanged((s) => useSessions.getState().applySession(s)),
    api.onStorageChanged((e) => useSessions.getState().applyStorage(e.session_id, e.storage)),
    api.onTaskChanged((t) => {
      useTasks.getState().applyTask(t);
      if (useTasks.getState().selectedId === t.task_id) timeline.signal(t.task_id);
    }),
    api.onInvocationChanged((r) => {
      useSessions.getState().applyReceipt(r);
      useApprovals.getState().applyReceipt(r);
    }),
    api.onApprovalsChanged(() => quiet(useApprovals.getState().load())),
    api.onUnresolvedChanged(() => quiet(useUnresolved.getState().load())),
    api.onHubConnection((h) => {
      const before = useApp.getState().hub?.state;
      useApp.getState().setHub(h);
      if (h.state === 'connected' && before !== 'connected') {
        quiet(useTasks.getState().load());
        quiet(useApprovals.getState().load());
        quiet(useUnresolved.getState().load());
        quiet(useSessions.getState().load());
      }
    }),
  ];
  return () => {
    for (const off of offs) off();
    timeline.dispose();
  };
}
