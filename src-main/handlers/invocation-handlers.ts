/** A conversation's calls: journal status and restore, inspect, resume, attest, Needs attention, tool search, manual runs. */
import { requireConnectedHub } from './errors.js';
import { requireSession, type RuntimeHandlerDeps } from './require-session.js';
import type { HandlerTable } from './types.js';
import { listUnresolved } from './unresolved.js';
import { actionView, journalSummary, toolCallItem, toolView } from './views.js';

type InvocationCalls =
  | 'getJournalStatus'
  | 'restoreJournal'
  | 'inspectInvocation'
  | 'resumeInvocation'
  | 'attestInvocation'
  | 'listUnresolved'
  | 'searchTools'
  | 'runToolManually';

export function invocationHandlers(deps: RuntimeHandlerDeps): Pick<HandlerTable, InvocationCalls> {
  const { runtime, hub } = deps;
  const needHub = () => requireConnectedHub(hub);
  return {
    async getJournalStatus(input) {
      await requireSession(runtime, input.session_id);
      return journalSummary(await runtime.journalStatus(input.session_id));
    },
    async restoreJournal(input) {
      await requireSession(runtime, input.session_id);
      return journalSummary(await runtime.restoreJournal(input.session_id));
    },
    async inspectInvocation(input) {
      await requireSession(runtime, input.session_id);
      return actionView(await runtime.inspectInvocation(input.session_id, input.invocation_id));
    },
    async resumeInvocation(input) {
      await requireSession(runtime, input.session_id);
      return actionView(await runtime.resumeInvocation(input.session_id, input.invocation_id));
    },
    async attestInvocation(input) {
      await requireSession(runtime, input.session_id);
      needHub();
      return actionView(
        await runtime.attestInvocation(input.session_id, input.invocation_id, {
          outcome: input.outcome,
          note: input.note,
        }),
      );
    },
    async listUnresolved() {
      return { items: await listUnresolved({ runtime, hub }) };
    },
    async searchTools(input) {
      await requireSession(runtime, input.session_id);
      needHub();
      const found = await runtime.searchTools(input.session_id, input.query);
      return { tools: found.map(toolView) };
    },
    async runToolManually(input) {
      await requireSession(runtime, input.session_id);
      needHub();
      const r = await runtime.runToolManually(input.session_id, input.function_name, input.arguments);
      return { item: toolCallItem(r.card) };
    },
  };
}
