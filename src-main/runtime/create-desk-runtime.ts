/**
 * Default wiring of the DeskRuntime: sessions (scope + archive), the model loop, the declaration
 * cache, journal passthrough and operator tools. Everything is injected; see ./from-data-dir.ts for
 * the wiring on a data directory.
 */
import { randomUUID } from 'node:crypto';
import { redactPayload } from '../archive/index.js';
import type { ArchiveStore } from '../archive/types.js';
import { createArgumentValidator } from './argument-validation.js';
import type {
  InvocationActionEnvelope,
  InvocationRuntime,
  InvocationStatus,
  ScopeCheck,
  ScopeStore,
  SessionScope,
} from './contracts.js';
import { systemPrompt, toArchiveEvent } from './conversation.js';
import { createDeclarationCache, type DeclarationCacheOptions } from './declaration-cache.js';
import type { DispatchObserver } from './dispatch-observer.js';
import type {
  ArchiveEvent,
  AttachmentInput,
  DeclarationView,
  DeskRuntime,
  ModelSettingsProvider,
  OpenedSession,
  RuntimeEvent,
  RuntimeListener,
  SessionSummary,
  TurnResult,
} from './desk-runtime.js';
import { hubErrorOf, type RuntimeHubPort } from './hub-port.js';
import { createIdSource, systemClock, type Clock, type IdSource } from './ids.js';
import { createRecorder, type LiveSession } from './live-session.js';
import { createModelClient, type ModelClient } from './model-client.js';
import { buildScope, connectionKeyOf, scopeFingerprint, type HubConnectionInfo } from './scope-builder.js';
import { createToolExecutor, handleOf, targetOf } from './tool-executor.js';
import { cancelTurn, runTurn, startTurn } from './turn-loop.js';
import { checkAttachments, createAttachmentSpace } from './attachments.js';

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
  /** Reports governed requests handed to the Hub (see ./dispatch-observer.ts); without it cards skip `dispatching`. */
  dispatches?: DispatchObserver;
  /** Called by close() after everything is flushed (e.g. to close stores the wiring opened). */
  onClose?: () => Promise<void> | void;
}

export class DeskRuntimeError extends Error {
  override name = 'DeskRuntimeError';
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

export function createDeskRuntime(deps: DeskRuntimeDeps): DeskRuntime {
  const clock = deps.clock ?? systemClock;
  const ids = deps.ids ?? createIdSource();
  const listeners = new Set<RuntimeListener>();
  const secrets = deps.secrets ?? (() => []);
  const emit = (raw: RuntimeEvent) => {
    // Nothing sent to subscribers (the renderer) may carry a secret, e.g. echoed in a business result.
    const e = redactPayload(raw, secrets()) as RuntimeEvent;
    for (const l of listeners) {
      try {
        l(e);
      } catch {
        // a failing listener never breaks the runtime
      }
    }
  };
  const recorder = createRecorder(deps.archive, ids, clock, emit);
  const attachments = createAttachmentSpace({
    archive: deps.archive,
    newId: () => ids.attachmentId?.() ?? `att_${randomUUID()}`,
    now: () => clock.now().toISOString(),
  });
  const validator = createArgumentValidator();
  const model = deps.model ?? createModelClient(deps.modelSettings);
  const live = new Map<string, LiveSession>();
  const opening = new Map<string, Promise<LiveSession>>();
  const runningTurns = new Set<Promise<unknown>>();
  let closed = false;

  const summaryOf = (s: LiveSession): SessionSummary => ({
    sessionId: s.sessionId,
    title: s.title,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    hubId: s.scope.hubId,
    members: structuredClone(s.scope.members),
    scopeFingerprint: s.scope.fingerprint,
    scopeRevision: s.scope.revision,
    taskId: s.scope.taskId,
    reuseDeclarations: s.reuseDeclarations,
    availability: s.availability,
    availabilityReason: s.availabilityReason,
    activeTurnId: s.activeTurn?.turnId ?? null,
    eventCount: s.events.length,
  });
  const changed = (s: LiveSession) => emit({ type: 'session.changed', session: summaryOf(s) });

  /** Counts how often each session was blocked, so an older check's answer cannot undo a newer block. */
  const blocks = new WeakMap<LiveSession, number>();
  const setAvailability = (s: LiveSession, check: ScopeCheck) => {
    if (check.state === 'blocked') blocks.set(s, (blocks.get(s) ?? 0) + 1);
    if (check.state === 'ok') {
      s.availability = 'open';
      s.availabilityReason = null;
    } else if (check.state === 'offline') {
      s.availability = 'offline';
      s.availabilityReason = check.reason;
    } else {
      s.availability = 'blocked';
      s.availabilityReason = `${check.reason}:${check.authorization_ref}`;
      // One blocked member blocks the whole group: nothing of this scope stays loaded.
      s.cache.clear();
    }
    changed(s);
  };

  const executor = createToolExecutor({
    hub: deps.hub,
    invocations: deps.invocations,
    validator,
    recorder,
    secrets,
    ...(deps.dispatches ? { dispatches: deps.dispatches } : {}),
    ensureScope: (session) => ensureScope(session),
    onScopeBlocked(session, reason) {
      const [code, ref] = reason.split(':');
      setAvailability(session, {
        state: 'blocked',
        reason: code === 'authorization_rebound' ? 'authorization_rebound' : 'authorization_revoked',
        authorization_ref: ref ?? '',
      });
    },
  });

  const systemPromptOf = (s: LiveSession) => {
    let extra = deps.systemPromptExtra ?? '';
    if (s.scope.members.length > 0 && s.availability === 'blocked') {
      extra += `\nBusiness tools are unavailable right now: the session's scope is ${s.availability} (${s.availabilityReason ?? 'unknown'}). Say so; do not claim any business action happened.`;
    } else if (s.scope.members.length > 0 && s.availability === 'offline') {
      extra += `\nThe Hub could not be reached at the last scope check (${s.availabilityReason ?? 'unknown'}). A business tool call re-checks the scope first and is refused, with nothing sent, if the Hub is still unreachable. Do not claim any business action happened unless a tool result says so.`;
    }
    return systemPrompt({ scope: s.scope, memberNames: s.memberNames, extra: extra.trim() || undefined });
  };

  function newLive(
    scope: SessionScope,
    meta: {
      title: string;
      createdAt: string;
      updatedAt: string;
      reuse: boolean;
      names: Record<string, string>;
    },
    events: ArchiveEvent[],
  ): LiveSession {
    return {
      sessionId: scope.sessionId,
      title: meta.title,
      createdAt: meta.createdAt,
      updatedAt: meta.updatedAt,
      reuseDeclarations: meta.reuse,
      memberNames: meta.names,
      scope,
      cache: createDeclarationCache(deps.cache),
      events,
      availability: 'not_opened',
      availabilityReason: null,
      activeTurn: null,
      background: new Set(),
      cards: new Map(),
    };
  }

  /**
   * One whole-scope check per session at a time: callers that ask while a check is in flight (two
   * tool calls, a tool call and an open, ...) share it instead of asking the Hub again.
   */
  const rechecks = new WeakMap<LiveSession, Promise<void>>();
  function revalidate(s: LiveSession): Promise<void> {
    const inFlight = rechecks.get(s);
    if (inFlight) return inFlight;
    const p = revalidateNow(s).finally(() => {
      rechecks.delete(s);
      s.background.delete(p);
    });
    rechecks.set(s, p);
    s.background.add(p); // close() waits for it
    return p;
  }

  /**
   * The lazy scope check (invariant 8): a session whose scope was never checked in this runtime
   * (`not_opened`) or whose last check found the Hub unreachable (`offline`) is re-checked only when
   * something actually needs the Hub (a tool call about to go there, an explicit open, an operator
   * search, inspect/resume). Ordinary chat never calls this. Open and blocked sessions are left as
   * they are (a blocked scope is re-checked only by an explicit openSession).
   */
  function ensureScope(s: LiveSession): Promise<void> {
    if (s.availability !== 'offline' && s.availability !== 'not_opened')
      return rechecks.get(s) ?? Promise.resolve();
    return revalidate(s);
  }

  async function revalidateNow(s: LiveSession): Promise<void> {
    if (s.scope.members.length === 0) {
      s.availability = 'open';
      s.availabilityReason = null;
      return;
    }
    const blocksBefore = blocks.get(s) ?? 0;
    let check: ScopeCheck;
    try {
      check = await deps.invocations.revalidateScope(s.scope);
    } catch {
      // revalidateScope maps every Hub failure to a coded reason; anything else thrown is coded here
      // (the reason becomes a refusal code, so it is never free text).
      check = { state: 'offline', reason: 'scope_check_failed' };
    }
    // A revocation/rebind learned while this check was in flight (a Hub event, a refused run) is
    // newer than the check's answer: it stays blocked until the next explicit check.
    if (check.state !== 'blocked' && (blocks.get(s) ?? 0) !== blocksBefore) return;
    setAvailability(s, check);
  }

  async function load(sessionId: string): Promise<LiveSession> {
    const rec = deps.archive.getSession(sessionId);
    if (!rec) throw new DeskRuntimeError('session_not_found', `no session ${sessionId}`);
    const scope = await deps.scopeStore.load(sessionId);
    const { events: stored } = deps.archive.load(sessionId);
    const events = stored.map(toArchiveEvent).filter((e): e is ArchiveEvent => e !== null);
    const settings = rec.settings;
    const s = newLive(
      scope ?? {
        sessionId,
        hubId: deps.connection.hubId,
        clientId: deps.connection.clientId,
        workspaceId: deps.connection.workspaceId,
        connectionKey: connectionKeyOf(deps.connection),
        members: [],
        fingerprint: scopeFingerprint(connectionKeyOf(deps.connection), []),
        revision: 1,
        taskId: null,
      },
      {
        title: rec.title,
        createdAt: rec.createdAt,
        updatedAt: rec.updatedAt,
        reuse: settings.reuseDeclarations !== false,
        names: isStringRecord(settings.memberNames) ? settings.memberNames : {},
      },
      events,
    );
    if (!scope) {
      s.availability = 'blocked';
      s.availabilityReason = 'scope_missing';
      live.set(sessionId, s);
      return s;
    }
    if (scope.connectionKey !== connectionKeyOf(deps.connection) || scope.hubId !== deps.connection.hubId) {
      s.availability = 'blocked';
      s.availabilityReason = 'binding_conflict:connection';
      live.set(sessionId, s);
      return s;
    }
    // Loading reads local data only: the scope stays `not_opened` until something needs the Hub.
    live.set(sessionId, s);
    return s;
  }

  async function getLive(sessionId: string): Promise<LiveSession> {
    if (closed) throw new DeskRuntimeError('runtime_closed', 'the runtime is closed');
    const s = live.get(sessionId);
    if (s) return s;
    let p = opening.get(sessionId);
    if (!p) {
      p = load(sessionId).finally(() => opening.delete(sessionId));
      opening.set(sessionId, p);
    }
    return p;
  }

  function declarationView(c: {
    functionName: string;
    declaration: import('../../src-shared/hub-api.js').Declaration;
  }): DeclarationView {
    const d = c.declaration;
    return {
      functionName: c.functionName,
      target: targetOf(d),
      description: d.description,
      input_schema: structuredClone(d.input_schema),
      effect: d.effect,
      approval_required: d.approval.required,
      idempotent: d.idempotent,
    };
  }

  async function journalStatus(sessionId: string, restore: boolean): Promise<InvocationStatus> {
    const raw = restore
      ? await deps.invocations.restoreSessionInvocations(sessionId)
      : await deps.invocations.getSessionInvocationStatus(sessionId);
    const status = withLiveScope(sessionId, raw);
    emit({ type: 'journal.state', sessionId, status });
    return status;
  }

  /**
   * The journal's remembered scope check only knows what its own revalidation saw. A member this
   * runtime learned was revoked/rebound (Hub event, refused run) blocks the scope too: report it,
   * with storage_error kept primary (seed 001). Local only, no Hub request.
   */
  function withLiveScope(sessionId: string, status: InvocationStatus): InvocationStatus {
    const s = live.get(sessionId);
    if (!s || s.availability !== 'blocked' || status.scope_state === 'blocked') return status;
    const reason = s.availabilityReason ?? 'scope_blocked';
    if (status.state === 'storage_error') return { ...status, scope_state: 'blocked', scope_reason: reason };
    if (status.state === 'ready')
      return { ...status, state: 'blocked', reason, scope_state: 'blocked', scope_reason: reason };
    return status;
  }

  async function recoveryAction(
    sessionId: string,
    invocationId: string,
    action: 'inspect' | 'resume',
  ): Promise<InvocationActionEnvelope> {
    const s = await getLive(sessionId);
    if (
      s.scope.members.length > 0 &&
      (s.scope.hubId !== deps.connection.hubId || s.scope.connectionKey !== connectionKeyOf(deps.connection))
    ) {
      // The call lives on the session's original Hub/connection. Asking the Hub this host is now
      // connected to would turn its 404 into a false "invocation_not_found": ask nothing.
      const status = await deps.invocations.getSessionInvocationStatus(sessionId);
      const env: InvocationActionEnvelope = {
        schema: 'bailing.agent-session-invocation-action.v1',
        state: status.state === 'storage_error' ? 'storage_error' : 'blocked',
        action,
        invocation_id: invocationId,
        resume_dispatched: false,
        receipt: null,
        feedback: {
          category: 'blocked',
          code: 'invocation_binding_conflict',
          message:
            'This conversation belongs to another Hub connection than the one this host uses now; its calls can only be inspected or resumed through their original Hub. Nothing was asked.',
          next_action: 'inspect_original',
          retryable: false,
          invocation_id: invocationId,
        },
        unsavedRecords: status.unsavedRecords,
      };
      return redactPayload(env, secrets()) as InvocationActionEnvelope;
    }
    await ensureScope(s);
    recorder.record(s, null, { kind: 'control', action, detail: { invocation_id: invocationId } });
    const handle = handleOf(s, null);
    const env =
      action === 'inspect'
        ? await deps.invocations.inspectSessionInvocation(handle, invocationId)
        : await deps.invocations.resumeSessionInvocation(handle, invocationId);
    if (env.receipt) {
      recorder.record(s, null, {
        kind: 'receipt',
        callId: null,
        invocation_id: env.receipt.invocation_id,
        state: env.receipt.state,
        receipt: env.receipt,
        late: false,
      });
    }
    return redactPayload(env, secrets()) as InvocationActionEnvelope;
  }

  return {
    async listSessions() {
      return deps.archive.listSessions().map((rec) => {
        const s = live.get(rec.sessionId);
        if (s) return summaryOf(s);
        return {
          sessionId: rec.sessionId,
          title: rec.title,
          createdAt: rec.createdAt,
          updatedAt: rec.updatedAt,
          hubId: typeof rec.settings.hubId === 'string' ? rec.settings.hubId : deps.connection.hubId,
          members: Array.isArray(rec.settings.members)
            ? (rec.settings.members as SessionSummary['members'])
            : [],
          scopeFingerprint:
            typeof rec.settings.scopeFingerprint === 'string' ? rec.settings.scopeFingerprint : '',
          scopeRevision: typeof rec.settings.scopeRevision === 'number' ? rec.settings.scopeRevision : 1,
          taskId: typeof rec.settings.taskId === 'string' ? rec.settings.taskId : null,
          reuseDeclarations: rec.settings.reuseDeclarations !== false,
          availability: 'not_opened',
          availabilityReason: null,
          activeTurnId: null,
          eventCount: deps.archive.eventCount(rec.sessionId),
        } satisfies SessionSummary;
      });
    },

    async createSession(input) {
      if (closed) throw new DeskRuntimeError('runtime_closed', 'the runtime is closed');
      const sessionId = ids.sessionId();
      const refs = [...input.authorizationRefs];
      // An empty scope makes no Hub request at all.
      const available = refs.length > 0 ? await deps.hub.listAuthorizations() : [];
      let scope: SessionScope;
      try {
        scope = buildScope(sessionId, deps.connection, refs, available, input.taskId ?? null);
      } catch (err) {
        const code =
          err && typeof err === 'object' && 'code' in err
            ? String((err as { code: unknown }).code)
            : 'invalid_scope';
        throw new DeskRuntimeError(code, err instanceof Error ? err.message : String(err));
      }
      const names: Record<string, string> = {};
      for (const ref of refs)
        names[ref] = available.find((a) => a.authorization_ref === ref)?.system_name ?? ref;
      const now = clock.now().toISOString();
      const title = (input.title ?? '').trim().slice(0, 200) || 'New conversation';
      const reuse = input.reuseDeclarations !== false;
      await deps.scopeStore.save(scope);
      deps.archive.upsertSession({
        sessionId,
        title,
        createdAt: now,
        updatedAt: now,
        settings: {
          reuseDeclarations: reuse,
          memberNames: names,
          members: scope.members,
          hubId: scope.hubId,
          scopeFingerprint: scope.fingerprint,
          scopeRevision: scope.revision,
          taskId: scope.taskId,
        },
      });
      const s = newLive(scope, { title, createdAt: now, updatedAt: now, reuse, names }, []);
      s.availability = 'open';
      live.set(sessionId, s);
      recorder.record(s, null, {
        kind: 'session_created',
        title,
        members: scope.members,
        taskId: scope.taskId,
      });
      changed(s);
      return summaryOf(s);
    },

    async openSession(sessionId) {
      const wasLive = live.has(sessionId);
      const s = await getLive(sessionId);
      // Opening is an explicit request to check the scope: every member, with one Hub request.
      if (s.availability === 'offline' || s.availability === 'not_opened') await ensureScope(s);
      else if (
        wasLive &&
        s.availability === 'blocked' &&
        s.availabilityReason !== 'scope_missing' &&
        !s.availabilityReason?.startsWith('binding_conflict')
      ) {
        await revalidate(s);
      }
      const journal = await journalStatus(sessionId, false);
      const opened: OpenedSession = {
        session: summaryOf(s),
        events: structuredClone(s.events),
        archive: recorder.archiveStatus(sessionId),
        journal,
      };
      changed(s);
      emit({ type: 'archive.state', sessionId, archive: opened.archive });
      return opened;
    },

    async sendMessage(sessionId, text, files) {
      const s = await getLive(sessionId);
      if (typeof text !== 'string' || text.trim().length === 0 || text.length > 100_000) {
        throw new DeskRuntimeError('invalid_message', 'a message must be 1..100000 characters');
      }
      // Checked before anything is recorded: a refused attachment leaves no trace and reaches no model.
      const problem = checkAttachments(files, secrets());
      if (problem) throw new DeskRuntimeError(problem.code, problem.message);
      if (s.activeTurn)
        throw new DeskRuntimeError('turn_in_progress', 'a turn is already running in this session');
      // No scope check here (invariant 8): a turn that needs the Hub re-checks it in the tool executor.
      const turn = startTurn(deps.hub, s, ids.turnId());
      s.activeTurn = turn;
      changed(s);
      const running = runTurn(
        {
          model,
          executor,
          recorder,
          hub: deps.hub,
          ids,
          maxModelRequests: deps.maxModelRequestsPerTurn ?? 12,
          systemPromptOf,
          secrets,
          attachments,
        },
        s,
        turn,
        text,
        files ?? [],
      );
      runningTurns.add(running);
      try {
        return await running;
      } finally {
        runningTurns.delete(running);
        s.activeTurn = null;
        changed(s);
      }
    },

    async getAttachment(sessionId, attachmentId) {
      if (closed) throw new DeskRuntimeError('runtime_closed', 'the runtime is closed');
      if (typeof attachmentId !== 'string' || attachmentId.length === 0) return null;
      const found = attachments.get(sessionId, attachmentId);
      return found ? (redactPayload(found, secrets()) as typeof found) : null;
    },

    async cancelTurn(sessionId) {
      const s = live.get(sessionId);
      const turn = s?.activeTurn;
      if (!s || !turn || turn.cancelled) return;
      recorder.record(s, turn.turnId, {
        kind: 'control',
        action: 'cancel_turn',
        detail: { turnId: turn.turnId },
      });
      cancelTurn(turn);
    },

    async setReuseDeclarations(sessionId, reuse) {
      const s = await getLive(sessionId);
      s.reuseDeclarations = reuse;
      const rec = deps.archive.getSession(sessionId);
      if (rec)
        deps.archive.upsertSession({
          ...rec,
          updatedAt: clock.now().toISOString(),
          settings: { ...rec.settings, reuseDeclarations: reuse },
        });
      changed(s);
      return summaryOf(s);
    },

    async archiveEvents(sessionId, opts) {
      const { events } = deps.archive.load(sessionId, opts);
      return events.map(toArchiveEvent).filter((e): e is ArchiveEvent => e !== null);
    },

    async archiveStatus(sessionId) {
      const status = deps.archive.flush(sessionId);
      const dto = recorder.archiveStatus(sessionId);
      void status;
      return dto;
    },

    journalStatus: (sessionId) => journalStatus(sessionId, false),
    restoreJournal: (sessionId) => journalStatus(sessionId, true),
    inspectInvocation: (sessionId, id) => recoveryAction(sessionId, id, 'inspect'),
    resumeInvocation: (sessionId, id) => recoveryAction(sessionId, id, 'resume'),

    async searchTools(sessionId, query) {
      const s = await getLive(sessionId);
      if (s.scope.members.length === 0) return [];
      await ensureScope(s);
      if (s.availability !== 'open')
        throw new DeskRuntimeError('scope_unavailable', `the session's scope is ${s.availability}`);
      const refs = s.scope.members.map((m) => m.authorization_ref);
      let found;
      try {
        found = await deps.hub.searchTools({
          query: query.slice(0, 500),
          authorization_refs: refs,
          limit: 20,
        });
      } catch (err) {
        const he = hubErrorOf(err);
        throw new DeskRuntimeError(
          he?.publicCode ?? 'hub_unavailable',
          he?.message ?? 'the Hub could not be reached',
        );
      }
      const cached = s.cache.put(
        found
          .filter((d) => d.hub_id === s.scope.hubId && refs.includes(d.authorization_ref))
          .map(({ score: _s, ...d }) => d),
      );
      return cached.map(declarationView);
    },

    async cachedDeclarations(sessionId) {
      const s = await getLive(sessionId);
      return s.cache.list().map(declarationView);
    },

    async runToolManually(sessionId, functionName, args) {
      const s = await getLive(sessionId);
      if (s.activeTurn)
        throw new DeskRuntimeError('turn_in_progress', 'a turn is already running in this session');
      const turn = startTurn(deps.hub, s, ids.turnId());
      s.activeTurn = turn;
      try {
        const entry = s.cache.byFunctionName(functionName);
        const call = {
          callId: `${turn.turnId}.manual`,
          name: functionName,
          argumentsText: JSON.stringify(args ?? {}),
        };
        recorder.record(s, turn.turnId, {
          kind: 'control',
          action: 'manual_tool_run',
          detail: { functionName },
        });
        recorder.record(s, turn.turnId, {
          kind: 'tool_call',
          callId: call.callId,
          functionName,
          argumentsText: entry?.declaration.audit_sensitive ? null : call.argumentsText.slice(0, 64_000),
          target: entry ? targetOf(entry.declaration) : null,
        });
        await executor.execute(s, turn, call);
        const card = s.cards.get(call.callId);
        if (!card) throw new DeskRuntimeError('internal_error', 'no card for the call');
        return { card: redactPayload(card, secrets()) as typeof card };
      } finally {
        turn.ended = true;
        await turn.runs.endAll();
        s.activeTurn = null;
      }
    },

    async authorizationChanged(a) {
      for (const s of live.values()) {
        const m = s.scope.members.find((x) => x.authorization_ref === a.authorization_ref);
        if (!m || a.hub_id !== s.scope.hubId) continue;
        if (a.state === 'revoked')
          setAvailability(s, {
            state: 'blocked',
            reason: 'authorization_revoked',
            authorization_ref: a.authorization_ref,
          });
        else if (a.state === 'rebound' || a.revision !== m.authorization_revision) {
          setAvailability(s, {
            state: 'blocked',
            reason: 'authorization_rebound',
            authorization_ref: a.authorization_ref,
          });
        }
      }
    },

    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },

    async close() {
      if (closed) return;
      closed = true;
      for (const s of live.values()) if (s.activeTurn) cancelTurn(s.activeTurn);
      await Promise.allSettled([...runningTurns]);
      for (const s of live.values()) await Promise.allSettled([...s.background]);
      for (const s of live.values()) deps.archive.flush(s.sessionId);
      await deps.onClose?.();
    },
  } satisfies DeskRuntime & {
    sendMessage(sessionId: string, text: string, files?: AttachmentInput[]): Promise<TurnResult>;
  };
}

function isStringRecord(v: unknown): v is Record<string, string> {
  return (
    !!v &&
    typeof v === 'object' &&
    !Array.isArray(v) &&
    Object.values(v as object).every((x) => typeof x === 'string')
  );
}
