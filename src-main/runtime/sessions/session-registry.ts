/**
 * The living sessions of this runtime: created here, or loaded from the archive and the scope store
 * on first use (local data only: a loaded scope stays `not_opened` until something needs the Hub).
 * Also the summaries the app lists, for living and persisted sessions alike.
 */
import type { ArchiveStore } from '../../archive/types.js';
import { toArchiveEvent } from '../conversation.js';
import { createDeclarationCache, type DeclarationCacheOptions } from '../declaration-cache.js';
import type { ArchiveEvent, CreateSessionInput, SessionSummary } from '../desk-runtime.js';
import type { RuntimeHubPort } from '../hub-port.js';
import type { Clock, IdSource } from '../ids.js';
import type { ScopeStore, SessionScope } from '../invocation-ports.js';
import type { LiveSession, Recorder } from '../live-session.js';
import { AppError } from '../../../src-shared/errors.js';
import {
  buildScope,
  connectionKeyOf,
  scopeFingerprint,
  ScopeSelectionError,
  type HubConnectionInfo,
} from '../scope-builder.js';

export interface SessionRegistryDeps {
  hub: Pick<RuntimeHubPort, 'listAuthorizations'>;
  archive: ArchiveStore;
  scopeStore: ScopeStore;
  connection: HubConnectionInfo;
  recorder: Recorder;
  ids: IdSource;
  clock: Clock;
  cache?: DeclarationCacheOptions;
  /** Called after a session's summary changed. */
  changed(s: LiveSession): void;
  /** True once the runtime is closed: nothing is loaded or created any more. */
  closed(): boolean;
}

export interface SessionRegistry {
  /** The living session, loading it on first use (concurrent callers share one load). */
  get(sessionId: string): Promise<LiveSession>;
  /** The living session if it is loaded; never loads. */
  peek(sessionId: string): LiveSession | undefined;
  living(): Iterable<LiveSession>;
  create(input: CreateSessionInput): Promise<LiveSession>;
  list(): SessionSummary[];
  setReuseDeclarations(s: LiveSession, reuse: boolean): void;
}

interface SessionMeta {
  title: string;
  createdAt: string;
  updatedAt: string;
  reuse: boolean;
  names: Record<string, string>;
}

export function summaryOf(s: LiveSession): SessionSummary {
  return {
    sessionId: s.sessionId,
    title: s.title,
    createdAt: s.createdAt,
    updatedAt: s.updatedAt,
    hubId: s.scope.hubId,
    members: structuredClone(s.scope.members),
    memberNames: { ...s.memberNames },
    scopeFingerprint: s.scope.fingerprint,
    scopeRevision: s.scope.revision,
    taskId: s.scope.taskId,
    reuseDeclarations: s.reuseDeclarations,
    availability: s.availability,
    availabilityReason: s.availabilityReason,
    availabilityRef: s.availabilityRef,
    activeTurnId: s.activeTurn?.turnId ?? null,
    eventCount: s.events.length,
  };
}

export function createSessionRegistry(deps: SessionRegistryDeps): SessionRegistry {
  const live = new Map<string, LiveSession>();
  const loading = new Map<string, Promise<LiveSession>>();
  const connectionKey = connectionKeyOf(deps.connection);

  const newLive = (scope: SessionScope, meta: SessionMeta, events: ArchiveEvent[]): LiveSession => ({
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
    availabilityRef: null,
    activeTurn: null,
    background: new Set(),
    cards: new Map(),
  });

  /** A persisted session without a stored scope: it is blocked, and this stands in for its scope. */
  const emptyScope = (sessionId: string): SessionScope => ({
    sessionId,
    hubId: deps.connection.hubId,
    clientId: deps.connection.clientId,
    workspaceId: deps.connection.workspaceId,
    connectionKey,
    members: [],
    fingerprint: scopeFingerprint(connectionKey, []),
    revision: 1,
    taskId: null,
  });

  async function load(sessionId: string): Promise<LiveSession> {
    const rec = deps.archive.getSession(sessionId);
    if (!rec) throw new AppError('session_not_found', `no session ${sessionId}`);
    const scope = await deps.scopeStore.load(sessionId);
    const { events: stored } = deps.archive.load(sessionId);
    const events = stored.map(toArchiveEvent).filter((e): e is ArchiveEvent => e !== null);
    const meta: SessionMeta = {
      title: rec.title,
      createdAt: rec.createdAt,
      updatedAt: rec.updatedAt,
      reuse: rec.settings.reuseDeclarations !== false,
      names: isStringRecord(rec.settings.memberNames) ? rec.settings.memberNames : {},
    };
    const s = newLive(scope ?? emptyScope(sessionId), meta, events);
    if (!scope) {
      s.availability = 'blocked';
      s.availabilityReason = 'scope_missing';
    } else if (scope.connectionKey !== connectionKey || scope.hubId !== deps.connection.hubId) {
      s.availability = 'blocked';
      // Bound to another Hub connection than this host's: no member to name.
      s.availabilityReason = 'binding_conflict';
    }
    // Otherwise loading reads local data only: the scope stays `not_opened` until something needs the Hub.
    live.set(sessionId, s);
    return s;
  }

  /** The summary of a session persisted in the archive but not loaded in this runtime. */
  function persistedSummary(rec: ReturnType<ArchiveStore['listSessions']>[number]): SessionSummary {
    const st = rec.settings;
    return {
      sessionId: rec.sessionId,
      title: rec.title,
      createdAt: rec.createdAt,
      updatedAt: rec.updatedAt,
      hubId: typeof st.hubId === 'string' ? st.hubId : deps.connection.hubId,
      members: Array.isArray(st.members) ? (st.members as SessionSummary['members']) : [],
      memberNames: isStringRecord(st.memberNames) ? { ...st.memberNames } : {},
      scopeFingerprint: typeof st.scopeFingerprint === 'string' ? st.scopeFingerprint : '',
      scopeRevision: typeof st.scopeRevision === 'number' ? st.scopeRevision : 1,
      taskId: typeof st.taskId === 'string' ? st.taskId : null,
      reuseDeclarations: st.reuseDeclarations !== false,
      availability: 'not_opened',
      availabilityReason: null,
      availabilityRef: null,
      activeTurnId: null,
      eventCount: deps.archive.eventCount(rec.sessionId),
    };
  }

  async function create(input: CreateSessionInput): Promise<LiveSession> {
    const sessionId = deps.ids.sessionId();
    const refs = [...input.authorizationRefs];
    // An empty scope makes no Hub request at all.
    const available = refs.length > 0 ? await deps.hub.listAuthorizations() : [];
    let scope: SessionScope;
    try {
      scope = buildScope(sessionId, deps.connection, refs, available, input.taskId ?? null);
    } catch (err) {
      if (err instanceof ScopeSelectionError) throw new AppError(err.code, err.message);
      throw err;
    }
    const names: Record<string, string> = {};
    for (const ref of refs)
      names[ref] = available.find((a) => a.authorization_ref === ref)?.system_name ?? ref;
    const now = deps.clock.now().toISOString();
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
    deps.recorder.record(s, null, {
      kind: 'session_created',
      title,
      members: scope.members,
      taskId: scope.taskId,
    });
    deps.changed(s);
    return s;
  }

  return {
    get(sessionId) {
      if (deps.closed()) return Promise.reject(new AppError('runtime_closed', 'the runtime is closed'));
      const s = live.get(sessionId);
      if (s) return Promise.resolve(s);
      let p = loading.get(sessionId);
      if (!p) {
        p = load(sessionId).finally(() => loading.delete(sessionId));
        loading.set(sessionId, p);
      }
      return p;
    },
    peek: (sessionId) => live.get(sessionId),
    living: () => live.values(),
    create(input) {
      if (deps.closed()) return Promise.reject(new AppError('runtime_closed', 'the runtime is closed'));
      return create(input);
    },
    list() {
      return deps.archive.listSessions().map((rec) => {
        const s = live.get(rec.sessionId);
        return s ? summaryOf(s) : persistedSummary(rec);
      });
    },
    setReuseDeclarations(s, reuse) {
      s.reuseDeclarations = reuse;
      const rec = deps.archive.getSession(s.sessionId);
      if (rec)
        deps.archive.upsertSession({
          ...rec,
          updatedAt: deps.clock.now().toISOString(),
          settings: { ...rec.settings, reuseDeclarations: reuse },
        });
      deps.changed(s);
    },
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
