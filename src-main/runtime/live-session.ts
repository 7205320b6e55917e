/**
 * A session living in this runtime: its fixed scope, its in-memory declaration cache, the saved
 * events, its availability and its running turn. `createRecorder` is the single place where an
 * event becomes visible: it is saved in the archive first and emitted only when saved.
 */
import type { ArchiveStore } from '../archive/types.js';
import type { SessionScope } from './invocation-ports.js';
import type { DeclarationCache } from './declaration-cache.js';
import type {
  ArchiveEvent,
  ArchiveEventPayload,
  ArchiveStatus,
  RuntimeEvent,
  SessionAvailability,
  ToolCallCard,
} from './desk-runtime.js';
import { payloadOf, toArchiveEvent } from './conversation.js';
import type { IdSource, Clock } from './ids.js';
import type { TurnRuns } from './turn-runs.js';

export interface TurnContext {
  turnId: string;
  abort: AbortController;
  cancelled: boolean;
  ended: boolean;
  runs: TurnRuns;
  /** Resolves when the turn is cancelled (used to stop waiting for in-flight work). */
  cancelledSignal: Promise<void>;
}

export interface LiveSession {
  sessionId: string;
  title: string;
  createdAt: string;
  updatedAt: string;
  reuseDeclarations: boolean;
  memberNames: Record<string, string>;
  scope: SessionScope;
  cache: DeclarationCache;
  events: ArchiveEvent[];
  availability: SessionAvailability;
  /** Why the scope is not open, as a code (authorization_revoked, hub_timeout, scope_missing, ...). */
  availabilityReason: string | null;
  /** The member a blocked scope names (its authorization_ref); null otherwise. */
  availabilityRef: string | null;
  activeTurn: TurnContext | null;
  /** Work that outlives its turn (late receipts); awaited by close(). */
  background: Set<Promise<unknown>>;
  cards: Map<string, ToolCallCard>;
}

export interface Recorder {
  /** Saves then emits. Returns null when the archive could not save it (its status is emitted instead). */
  record(session: LiveSession, turnId: string | null, payload: ArchiveEventPayload): ArchiveEvent | null;
  emit(event: RuntimeEvent): void;
  archiveStatus(sessionId: string): ArchiveStatus;
}

export function createRecorder(
  archive: ArchiveStore,
  ids: IdSource,
  clock: Clock,
  emit: (e: RuntimeEvent) => void,
): Recorder {
  const archiveStatus = (sessionId: string): ArchiveStatus => {
    const s = archive.status(sessionId);
    return {
      state: s.state,
      unsavedEvents: s.unsavedEvents.map((u) => ({
        ...u,
        kind: u.kind as ArchiveStatus['unsavedEvents'][number]['kind'],
      })),
      recoveryGap: s.recoveryGap,
      reason: s.reason,
    };
  };
  return {
    record(session, turnId, p) {
      const { kind, payload } = payloadOf(p);
      const at = clock.now().toISOString();
      let result;
      try {
        result = archive.append(session.sessionId, { eventId: ids.eventId(), turnId, at, kind, payload });
      } catch (err) {
        // bad input (oversized payload): nothing saved, nothing shown; report on the archive channel
        emit({
          type: 'archive.state',
          sessionId: session.sessionId,
          archive: {
            ...archiveStatus(session.sessionId),
            reason: err instanceof Error ? err.message : String(err),
          },
        });
        return null;
      }
      if (!result.saved) {
        emit({
          type: 'archive.state',
          sessionId: session.sessionId,
          archive: archiveStatus(session.sessionId),
        });
        return null;
      }
      const lastSeq = session.events[session.events.length - 1]?.seq ?? 0;
      // Earlier unsaved events may just have been flushed ahead of this one: show them first, in order.
      const saved =
        result.event.seq === lastSeq + 1
          ? [result.event]
          : archive.load(session.sessionId, { afterSeq: lastSeq }).events;
      let event: ArchiveEvent | null = null;
      for (const stored of saved) {
        const e = toArchiveEvent(stored);
        if (!e) continue;
        session.events.push(e);
        emit({ type: 'archive.event', sessionId: session.sessionId, event: e });
        if (stored.eventId === result.event.eventId) event = e;
      }
      session.updatedAt = at;
      if (saved.length > 1)
        emit({
          type: 'archive.state',
          sessionId: session.sessionId,
          archive: archiveStatus(session.sessionId),
        });
      return event;
    },
    emit,
    archiveStatus,
  };
}
