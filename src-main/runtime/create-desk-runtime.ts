/**
 * Default wiring of the DeskRuntime from its parts, each in a file of its own: the session registry
 * (./sessions/session-registry.ts), scope availability (./sessions/scope-availability.ts), the
 * turn loop (./turn-loop.ts) and the tool executor (./tool-executor.ts), the recovery actions
 * (./sessions/recovery-actions.ts), the operator tools (./sessions/operator-tools.ts) and the
 * prompt (./sessions/system-prompt.ts). Everything is injected; see ./from-data-dir.ts for the
 * wiring on a data directory.
 */
import { randomUUID } from 'node:crypto';
import { needsScopeCheck } from '../../src-shared/states.js';
import { redactPayload } from '../archive/index.js';
import type { ArchiveStore } from '../archive/types.js';
import { createArgumentValidator } from './argument-validation.js';
import { checkAttachments, createAttachmentSpace, type AttachmentSpace } from './attachments.js';
import { toArchiveEvent } from './conversation.js';
import type { DeclarationCacheOptions } from './declaration-cache.js';
import type {
  ArchiveEvent,
  AttachmentInput,
  DeskRuntime,
  ModelSettingsProvider,
  OpenedSession,
  TurnResult,
} from './desk-runtime.js';
import type { RuntimeHubPort } from './hub-port.js';
import { createIdSource, systemClock, type Clock, type IdSource } from './ids.js';
import type { InvocationRuntime, ScopeStore } from './invocation-ports.js';
import { createRecorder, type LiveSession, type Recorder } from './live-session.js';
import { createModelClient, type ModelClient } from './model-client.js';
import { AppError } from '../../src-shared/errors.js';
import { createRuntimeEvents, type RuntimeEvents } from './runtime-events.js';
import type { HubConnectionInfo } from './scope-builder.js';
import { createOperatorTools } from './sessions/operator-tools.js';
import { createRecoveryActions } from './sessions/recovery-actions.js';
import { createScopeAvailability, type ScopeAvailability } from './sessions/scope-availability.js';
import { createSessionRegistry, summaryOf, type SessionRegistry } from './sessions/session-registry.js';
import { systemPromptFor } from './sessions/system-prompt.js';
import { createToolExecutor, type ToolExecutor } from './tool-executor.js';
import { cancelTurn, runTurn, startTurn } from './turn-loop.js';

export interface DeskRuntimeDeps {
  hub: RuntimeHubPort;
  invocations: InvocationRuntime;
  archive: ArchiveStore;
  scopeStore: ScopeStore;
  connection: HubConnectionInfo;
  modelSettings: ModelSettingsProvider;
  /** Override the model client (default: the openai SDK with `modelSettings`). */
  model?: ModelClient;
  clock?: Clock;
  ids?: IdSource;
  cache?: DeclarationCacheOptions;
  maxModelRequestsPerTurn?: number;
  systemPromptExtra?: string;
  /** Known secret values (Hub token, model key): masked in everything emitted to subscribers. */
  secrets?: () => readonly string[];
  /** Called by close() after everything is flushed (e.g. to close stores the wiring opened). */
  onClose?: () => Promise<void> | void;
}

/** The turns of every session: one at a time per session, all cancelled and awaited on close. */
interface Conversations {
  send(s: LiveSession, text: string, files?: AttachmentInput[]): Promise<TurnResult>;
  cancel(s: LiveSession): void;
  closeAll(sessions: Iterable<LiveSession>): Promise<void>;
}

interface ConversationsDeps {
  hub: RuntimeHubPort;
  model: ModelClient;
  executor: ToolExecutor;
  recorder: Recorder;
  attachments: AttachmentSpace;
  ids: IdSource;
  maxModelRequests: number;
  systemPromptExtra: string;
  secrets: () => readonly string[];
  changed(s: LiveSession): void;
}

function createConversations(deps: ConversationsDeps): Conversations {
  const running = new Set<Promise<unknown>>();
  return {
    async send(s, text, files) {
      if (typeof text !== 'string' || text.trim().length === 0 || text.length > 100_000) {
        throw new AppError('invalid_payload', 'a message must be 1..100000 characters');
      }
      // Checked before anything is recorded: a refused attachment leaves no trace and reaches no model.
      const problem = checkAttachments(files, deps.secrets());
      if (problem)
        throw problem.code === 'attachment_contains_secret'
          ? new AppError(problem.code, problem.message)
          : new AppError('invalid_payload', `Invalid attachment: ${problem.message}`);
      if (s.activeTurn) throw new AppError('turn_in_progress', 'a turn is already running in this session');
      // No scope check here (invariant 8): a turn that needs the Hub re-checks it in the tool executor.
      const turn = startTurn(deps.hub, s, deps.ids.turnId());
      s.activeTurn = turn;
      deps.changed(s);
      const loop = {
        model: deps.model,
        executor: deps.executor,
        recorder: deps.recorder,
        ids: deps.ids,
        maxModelRequests: deps.maxModelRequests,
        systemPromptOf: (x: LiveSession) => systemPromptFor(x, deps.systemPromptExtra),
        secrets: deps.secrets,
        attachments: deps.attachments,
      };
      const turnDone = runTurn(loop, s, turn, text, files ?? []);
      running.add(turnDone);
      try {
        return await turnDone;
      } finally {
        running.delete(turnDone);
        s.activeTurn = null;
        deps.changed(s);
      }
    },
    cancel(s) {
      const turn = s.activeTurn;
      if (!turn || turn.cancelled) return;
      deps.recorder.record(s, turn.turnId, {
        kind: 'control',
        action: 'cancel_turn',
        detail: { turnId: turn.turnId },
      });
      cancelTurn(turn);
    },
    async closeAll(sessions) {
      const all = [...sessions];
      for (const s of all) if (s.activeTurn) cancelTurn(s.activeTurn);
      await Promise.allSettled([...running]);
      for (const s of all) await Promise.allSettled([...s.background]);
    },
  };
}

interface Parts {
  events: RuntimeEvents;
  recorder: Recorder;
  sessions: SessionRegistry;
  scope: ScopeAvailability;
  attachments: AttachmentSpace;
  executor: ToolExecutor;
}

function createParts(deps: DeskRuntimeDeps, ids: IdSource, clock: Clock, closed: () => boolean): Parts {
  const secrets = deps.secrets ?? (() => []);
  const events = createRuntimeEvents(secrets);
  const recorder = createRecorder(deps.archive, ids, clock, events.emit);
  const changed = (s: LiveSession) => events.emit({ type: 'session.changed', session: summaryOf(s) });
  const scope = createScopeAvailability({ invocations: deps.invocations, changed });
  const sessions = createSessionRegistry({
    hub: deps.hub,
    archive: deps.archive,
    scopeStore: deps.scopeStore,
    connection: deps.connection,
    recorder,
    ids,
    clock,
    ...(deps.cache ? { cache: deps.cache } : {}),
    changed,
    closed,
  });
  const attachments = createAttachmentSpace({
    archive: deps.archive,
    newId: () => ids.attachmentId?.() ?? `att_${randomUUID()}`,
    now: () => clock.now().toISOString(),
  });
  const executor = createToolExecutor({
    hub: deps.hub,
    invocations: deps.invocations,
    validator: createArgumentValidator(),
    recorder,
    scope,
    secrets,
  });
  return { events, recorder, sessions, scope, attachments, executor };
}

export function createDeskRuntime(deps: DeskRuntimeDeps): DeskRuntime {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? createIdSource();
  const secrets = deps.secrets ?? (() => []);
  let closed = false;
  const { events, recorder, sessions, scope, attachments, executor } = createParts(
    deps,
    ids,
    clock,
    () => closed,
  );
  const changed = (s: LiveSession) => events.emit({ type: 'session.changed', session: summaryOf(s) });
  const recovery = createRecoveryActions({
    invocations: deps.invocations,
    sessions,
    scope,
    recorder,
    events,
    connection: deps.connection,
    secrets,
  });
  const operator = createOperatorTools({ hub: deps.hub, scope, executor, recorder, ids, secrets });
  const conversations = createConversations({
    hub: deps.hub,
    model: deps.model ?? createModelClient(deps.modelSettings),
    executor,
    recorder,
    attachments,
    ids,
    maxModelRequests: deps.maxModelRequestsPerTurn ?? 12,
    systemPromptExtra: deps.systemPromptExtra ?? '',
    secrets,
    changed,
  });

  /** Opening is an explicit request to check the scope: every member, with one Hub request. */
  async function openSession(sessionId: string): Promise<OpenedSession> {
    const wasLive = sessions.peek(sessionId) !== undefined;
    const s = await sessions.get(sessionId);
    if (needsScopeCheck(s.availability)) await scope.ensure(s);
    else if (
      wasLive &&
      s.availability === 'blocked' &&
      s.availabilityReason !== 'scope_missing' &&
      s.availabilityReason !== 'binding_conflict'
    ) {
      await scope.recheck(s);
    }
    const journal = await recovery.journalStatus(sessionId, false);
    const opened: OpenedSession = {
      session: summaryOf(s),
      events: structuredClone(s.events),
      archive: recorder.archiveStatus(sessionId),
      journal,
    };
    changed(s);
    events.emit({ type: 'archive.state', sessionId, archive: opened.archive });
    return opened;
  }

  return {
    listSessions: async () => sessions.list(),
    createSession: async (input) => summaryOf(await sessions.create(input)),
    openSession,
    sendMessage: async (sessionId, text, files) =>
      conversations.send(await sessions.get(sessionId), text, files),
    async getAttachment(sessionId, attachmentId) {
      if (closed) throw new AppError('runtime_closed', 'the runtime is closed');
      if (typeof attachmentId !== 'string' || attachmentId.length === 0) return null;
      const found = attachments.get(sessionId, attachmentId);
      return found ? (redactPayload(found, secrets()) as typeof found) : null;
    },
    async cancelTurn(sessionId) {
      const s = sessions.peek(sessionId);
      if (s) conversations.cancel(s);
    },
    async setReuseDeclarations(sessionId, reuse) {
      const s = await sessions.get(sessionId);
      sessions.setReuseDeclarations(s, reuse);
      return summaryOf(s);
    },
    async archiveEvents(sessionId, opts) {
      const { events: stored } = deps.archive.load(sessionId, opts);
      return stored.map(toArchiveEvent).filter((e): e is ArchiveEvent => e !== null);
    },
    async archiveStatus(sessionId) {
      deps.archive.flush(sessionId);
      return recorder.archiveStatus(sessionId);
    },
    journalStatus: (sessionId) => recovery.journalStatus(sessionId, false),
    restoreJournal: (sessionId) => recovery.journalStatus(sessionId, true),
    inspectInvocation: (sessionId, id) => recovery.act(sessionId, id, 'inspect'),
    resumeInvocation: (sessionId, id) => recovery.act(sessionId, id, 'resume'),
    attestInvocation: (sessionId, id, attestation) => recovery.act(sessionId, id, 'attest', attestation),
    searchTools: async (sessionId, query) => operator.search(await sessions.get(sessionId), query),
    cachedDeclarations: async (sessionId) => operator.cached(await sessions.get(sessionId)),
    runToolManually: async (sessionId, functionName, args) =>
      operator.runManually(await sessions.get(sessionId), functionName, args),
    authorizationChanged: (a) => scope.authorizationChanged(sessions.living(), a),
    subscribe: (listener) => events.subscribe(listener),
    async close() {
      if (closed) return;
      closed = true;
      await conversations.closeAll(sessions.living());
      for (const s of sessions.living()) deps.archive.flush(s.sessionId);
      await deps.onClose?.();
    },
  };
}
