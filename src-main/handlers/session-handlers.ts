/** Conversations: list, create, open (its cards brought up to the last receipts seen), send, attachments, cancel. */
import { withLaterReceipt } from '../../src-shared/card-receipt.js';
import type { InvocationStatusEntry } from '../runtime/invocation-ports.js';
import { conversationItems } from './conversation.js';
import { AppError, requireConnectedHub } from './errors.js';
import type { HubGateway } from './hub-gateway.js';
import { requireSession, type RuntimeHandlerDeps } from './require-session.js';
import type { HandlerTable } from './types.js';
import { sessionView, storageView } from './views.js';

type SessionCalls =
  'listSessions' | 'createSession' | 'getConversation' | 'sendMessage' | 'getAttachment' | 'cancelTurn';

export function sessionHandlers(
  deps: RuntimeHandlerDeps & {
    /** Whether a model (base URL + model name) is configured; chat needs one, manual tool runs do not. */
    modelConfigured: () => boolean;
  },
): Pick<HandlerTable, SessionCalls> {
  const { runtime, hub } = deps;
  const needHub = () => requireConnectedHub(hub);
  return {
    async listSessions() {
      const sessions = await runtime.listSessions();
      return { sessions: sessions.map(sessionView) };
    },
    async createSession(input) {
      if (input.authorization_refs.length > 0 || input.task_id) needHub();
      const s = await runtime.createSession({
        title: input.title,
        authorizationRefs: input.authorization_refs,
        taskId: input.task_id,
      });
      return sessionView(s);
    },
    async getConversation(input) {
      await requireSession(runtime, input.session_id);
      const opened = await runtime.openSession(input.session_id);
      return {
        session: sessionView(opened.session),
        // The same state Needs attention leads with: the Hub's last receipt seen, else the journal's.
        // A card is brought up to the last receipt the live stream brought (an approval decided
        // elsewhere, a resume from Needs attention) when that is later than what the archive holds.
        items: conversationItems(opened.events, withLastReceipts(opened.journal.entries, hub), {
          activeTurnId: opened.session.activeTurnId,
        }).map((it) =>
          it.kind === 'tool_call' && it.invocation_id
            ? withLaterReceipt(it, hub.lastReceipt(it.invocation_id))
            : it,
        ),
        storage: storageView(opened.journal, opened.archive),
      };
    },
    async sendMessage(input) {
      const s = await requireSession(runtime, input.session_id);
      if (s.activeTurnId)
        throw new AppError('turn_in_progress', 'A turn is already running in this conversation.');
      if (!deps.modelConfigured()) {
        throw new AppError(
          'model_not_configured',
          'No model is configured. Set one in Settings, or run a tool by hand.',
        );
      }
      // The turn runs in the background; progress arrives as events (turnState, conversationItem).
      const started = new Promise<string>((resolve, reject) => {
        const off = runtime.subscribe((e) => {
          if (e.type === 'turn.state' && e.sessionId === input.session_id && e.state === 'running') {
            off();
            resolve(e.turnId);
          }
        });
        const files = input.attachments?.map((a) => ({
          name: a.name,
          mediaType: a.media_type,
          text: a.text,
        }));
        runtime.sendMessage(input.session_id, input.text, files).then(
          (r) => {
            off();
            resolve(r.turnId);
          },
          (err: unknown) => {
            off();
            reject(err);
          },
        );
      });
      return { turn_id: await started };
    },
    async getAttachment(input) {
      await requireSession(runtime, input.session_id);
      // Only this conversation's attachment space is read: another conversation's id is not found here.
      const found = await runtime.getAttachment(input.session_id, input.attachment_id);
      if (!found) throw new AppError('attachment_not_found', 'No such attachment in this conversation.');
      return { attachment: found.attachment, text: found.text };
    },
    async cancelTurn(input) {
      await requireSession(runtime, input.session_id);
      await runtime.cancelTurn(input.session_id);
      return { ok: true as const };
    },
  };
}

/** Journal entries with the state of the last Hub receipt seen on the live stream, where there is one. */
function withLastReceipts(
  entries: readonly InvocationStatusEntry[],
  hub: Pick<HubGateway, 'lastReceipt'>,
): InvocationStatusEntry[] {
  return entries.map((e) => {
    const r = hub.lastReceipt(e.invocation_id);
    return r ? { ...e, last_known_state: r.state } : e;
  });
}
