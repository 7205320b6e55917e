/** Conversations: the list, the open conversation's items (upserted by id), storage and turn state. */
import { create } from 'zustand';
import type { Receipt } from '../../../src-shared/hub-api.js';
import { withReceipt } from '../../../src-shared/card-receipt.js';
import type { ConversationItem, SessionSummary, StorageView } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';
import { buildSendInput, type PendingAttachment } from '../logic/attachments.js';

export interface Conversation {
  items: ConversationItem[];
  storage: StorageView | null;
  loaded: boolean;
}

export interface SessionsState {
  sessions: SessionSummary[];
  currentId: string | null;
  conversations: Record<string, Conversation>;
  load(): Promise<void>;
  open(sessionId: string): Promise<void>;
  create(input: {
    title: string;
    authorization_refs: string[];
    task_id: string | null;
  }): Promise<SessionSummary>;
  /** Sends a message (with its attachments, if any) in the open conversation. */
  send(text: string, attachments?: readonly PendingAttachment[]): Promise<void>;
  cancel(): Promise<void>;
  applyItem(sessionId: string, item: ConversationItem): void;
  applySession(s: SessionSummary): void;
  applyStorage(sessionId: string, storage: StorageView): void;
  applyReceipt(r: Receipt): void;
  applyTurn(sessionId: string, running: boolean): void;
}

export { withReceipt };

export function upsertItem(items: ConversationItem[], item: ConversationItem): ConversationItem[] {
  const i = items.findIndex((x) => x.id === item.id);
  if (i === -1) return [...items, item];
  const next = items.slice();
  next[i] = item;
  return next;
}

const emptyConversation: Conversation = { items: [], storage: null, loaded: false };

export const useSessions = create<SessionsState>((set, get) => ({
  sessions: [],
  currentId: null,
  conversations: {},
  async load() {
    const { sessions } = await call('listSessions', {});
    set({ sessions });
  },
  async open(sessionId) {
    set({ currentId: sessionId });
    const r = await call('getConversation', { session_id: sessionId });
    set((s) => ({
      conversations: {
        ...s.conversations,
        [sessionId]: { items: r.items, storage: r.storage, loaded: true },
      },
      sessions: s.sessions.some((x) => x.session_id === sessionId)
        ? s.sessions.map((x) => (x.session_id === sessionId ? r.session : x))
        : [...s.sessions, r.session],
    }));
  },
  async create(input) {
    const session = await call('createSession', input);
    set((s) => ({ sessions: [session, ...s.sessions.filter((x) => x.session_id !== session.session_id)] }));
    await get().open(session.session_id);
    return session;
  },
  async send(text, attachments = []) {
    const id = get().currentId;
    if (!id) return;
    get().applyTurn(id, true);
    try {
      await call('sendMessage', buildSendInput(id, text, attachments));
    } catch (err) {
      get().applyTurn(id, false);
      throw err;
    }
  },
  async cancel() {
    const id = get().currentId;
    if (id) await call('cancelTurn', { session_id: id });
  },
  applyItem(sessionId, item) {
    set((s) => {
      const c = s.conversations[sessionId] ?? emptyConversation;
      return {
        conversations: { ...s.conversations, [sessionId]: { ...c, items: upsertItem(c.items, item) } },
      };
    });
  },
  applySession(session) {
    set((s) => ({
      sessions: s.sessions.some((x) => x.session_id === session.session_id)
        ? s.sessions.map((x) => (x.session_id === session.session_id ? session : x))
        : [session, ...s.sessions],
    }));
  },
  applyStorage(sessionId, storage) {
    set((s) => {
      const c = s.conversations[sessionId] ?? emptyConversation;
      return { conversations: { ...s.conversations, [sessionId]: { ...c, storage } } };
    });
  },
  applyReceipt(r) {
    set((s) => {
      const c = s.conversations[r.agent_session_id];
      if (!c) return s;
      let changed = false;
      const items = c.items.map((it) => {
        if (it.kind !== 'tool_call' || it.invocation_id !== r.invocation_id) return it;
        const next = withReceipt(it, r);
        if (next === it) return it;
        changed = true;
        return next;
      });
      return changed ? { conversations: { ...s.conversations, [r.agent_session_id]: { ...c, items } } } : s;
    });
  },
  applyTurn(sessionId, running) {
    set((s) => ({
      sessions: s.sessions.map((x) => (x.session_id === sessionId ? { ...x, turn_running: running } : x)),
    }));
  },
}));
