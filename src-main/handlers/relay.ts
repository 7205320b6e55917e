/**
 * Relays runtime and Hub events to the renderer(s) as contract events. Streamed text is
 * accumulated here so the renderer upserts one growing item; storage state keeps the last known
 * journal and archive status per session so each update shows both, side by side.
 */
import type { InvocationStatus } from '../runtime/invocation-ports.js';
import type { ArchiveStatus, DeskRuntime, RuntimeEvent } from '../runtime/desk-runtime.js';
import { createCoalescer } from '../../src-shared/coalesce.js';
import { turnEndedNotice } from './conversation.js';
import type { EventBus } from './event-bus.js';
import type { HubGateway, HubGatewayEvent } from './hub-gateway.js';
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import {
  assistantItem,
  reasoningView,
  retryItem,
  sessionView,
  storageView,
  toolCallItem,
  usageItem,
  userMessageItem,
} from './views.js';

export interface RelayDeps {
  runtime: DeskRuntime;
  hub: HubGateway;
  bus: EventBus;
  now?: () => Date;
}

const READY_JOURNAL: InvocationStatus = { state: 'ready', entries: [], unsavedRecords: [] };
const READY_ARCHIVE: ArchiveStatus = { state: 'ready', unsavedEvents: [], recoveryGap: null, reason: null };

/** What the idle panel and the storage bar show of a journal status; equal signatures = nothing to relay. */
export function journalSignature(s: InvocationStatus): string {
  return JSON.stringify([
    s.state,
    s.reason ?? null,
    s.entries.map((e) => [e.invocation_id, e.last_known_state]),
    s.unsavedRecords.map((u) => [u.invocation_id, u.reason]),
  ]);
}

export function startRelay(deps: RelayDeps): () => void {
  const { bus } = deps;
  const now = deps.now ?? (() => new Date());
  const streaming = new Map<string, { text: string; reasoning: string; at: string }>();
  const storage = new Map<string, { journal: InvocationStatus; archive: ArchiveStatus }>();
  const journalSigs = new Map<string, string>();
  const archiveSigs = new Map<string, string>();
  // The idle panel re-reads on this signal: bursts (an event replay after a reconnect) are coalesced.
  const unresolved = createCoalescer<'journal' | 'invocation' | 'tool_call'>(
    (source) => bus.emit('unresolvedChanged', { source }),
    100,
  );

  const storageOf = (sessionId: string) => {
    let s = storage.get(sessionId);
    if (!s) {
      s = { journal: READY_JOURNAL, archive: READY_ARCHIVE };
      storage.set(sessionId, s);
    }
    return s;
  };

  const onRuntime = (e: RuntimeEvent) => {
    switch (e.type) {
      case 'session.changed':
        bus.emit('sessionChanged', sessionView(e.session));
        break;
      case 'message.delta': {
        const key = `${e.sessionId}:${e.messageId}`;
        const cur = streaming.get(key) ?? { text: '', reasoning: '', at: now().toISOString() };
        if (e.channel === 'reasoning') cur.reasoning += e.delta;
        else cur.text += e.delta;
        streaming.set(key, cur);
        bus.emit('conversationItem', {
          session_id: e.sessionId,
          item: {
            kind: 'assistant_text',
            id: e.messageId,
            at: cur.at,
            text: cur.text,
            streaming: true,
            reasoning: reasoningView(cur.reasoning),
          },
        });
        break;
      }
      case 'archive.event': {
        const ev = e.event;
        const item = (value: ConversationItem | null) => {
          if (value) bus.emit('conversationItem', { session_id: e.sessionId, item: value });
        };
        if (ev.kind === 'assistant_message') {
          streaming.delete(`${e.sessionId}:${ev.messageId}`);
          item(assistantItem(ev));
        } else if (ev.kind === 'user_message') {
          item(userMessageItem(ev));
        } else if (ev.kind === 'model_retry') {
          item(retryItem(ev));
        } else if (ev.kind === 'turn_ended') {
          item(usageItem(ev));
          item(turnEndedNotice(ev));
        }
        break;
      }
      case 'tool.card': {
        bus.emit('conversationItem', { session_id: e.card.sessionId, item: toolCallItem(e.card) });
        unresolved.signal('tool_call');
        break;
      }
      case 'turn.state':
        bus.emit('turnState', {
          session_id: e.sessionId,
          turn_id: e.turnId,
          state: e.state,
          message: e.error,
        });
        break;
      case 'journal.state': {
        // Reading a status emits it too; relay only real changes, so a re-read never echoes back.
        const sig = journalSignature(e.status);
        if (journalSigs.get(e.sessionId) === sig) break;
        journalSigs.set(e.sessionId, sig);
        const s = storageOf(e.sessionId);
        s.journal = e.status;
        bus.emit('storageChanged', { session_id: e.sessionId, storage: storageView(s.journal, s.archive) });
        unresolved.signal('journal');
        break;
      }
      case 'archive.state': {
        const sig = JSON.stringify([
          e.archive.state,
          e.archive.reason,
          e.archive.unsavedEvents.length,
          e.archive.recoveryGap,
        ]);
        if (archiveSigs.get(e.sessionId) === sig) break;
        archiveSigs.set(e.sessionId, sig);
        const s = storageOf(e.sessionId);
        s.archive = e.archive;
        bus.emit('storageChanged', { session_id: e.sessionId, storage: storageView(s.journal, s.archive) });
        unresolved.signal('journal');
        break;
      }
    }
  };

  const onHub = (e: HubGatewayEvent) => {
    switch (e.type) {
      case 'task':
        bus.emit('taskChanged', e.task);
        break;
      case 'invocation':
        bus.emit('invocationChanged', e.receipt);
        unresolved.signal('invocation');
        break;
      case 'approvals':
        bus.emit('approvalsChanged', { pending: e.pending });
        break;
      case 'connection':
        bus.emit('hubConnection', e.connection);
        break;
      case 'authorization':
        break;
    }
  };

  const offRuntime = deps.runtime.subscribe(onRuntime);
  const offHub = deps.hub.subscribe(onHub);
  return () => {
    offRuntime();
    offHub();
    unresolved.dispose();
  };
}
