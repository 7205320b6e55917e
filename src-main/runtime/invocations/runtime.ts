/**
 * createInvocationRuntime: the InvocationRuntime of src-main/runtime/invocation-ports.ts.
 *
 * Store selection (docs/journal.md#selecting-a-store-createinvocationruntime):
 * - `invocationStore` given: used (custom adapters are wrapped so the strict record rules and the
 *   8 MiB bound always hold);
 * - `invocationStore: null`: durable storage explicitly disabled, state `unsupported`;
 * - omitted with a custom scope store (`customScopeStore: true`): `unsupported` (a host supplying
 *   its own scope store must supply an invocation store explicitly);
 * - omitted otherwise: also `unsupported` (no store was configured); the host's default wiring
 *   passes `createSqliteInvocationStore({ path })` under its data directory.
 */
import { newInvocationId } from '../../../src-shared/invocation-id.js';
import type { InvocationStore } from '../../journal/index.js';
import { withRecordValidation } from '../../journal/index.js';
import type { InvocationRuntime, ScopeCheck, ScopeStore, SessionScope } from '../invocation-ports.js';
import { attestInvocation } from '../recovery/attest.js';
import { inspectInvocation, resumeInvocation } from '../recovery/remote.js';
import { sessionStatus } from '../recovery/status.js';
import { revalidateScopeWith } from '../scope/revalidate.js';
import type { RuntimeContext } from './context.js';
import { invokeGoverned } from './dispatch-fence.js';
import type { RuntimeHubPort } from '../hub-port.js';
import { SessionJournal } from './session-journal.js';

export interface InvocationRuntimeDeps {
  hub: RuntimeHubPort;
  invocationStore?: InvocationStore | null | undefined;
  scopeStore: ScopeStore;
  /** True when the host supplies its own scope store (then the invocation store must be explicit). */
  customScopeStore?: boolean;
  now?: () => Date;
  /**
   * New invocation ids (also the business idempotency key). Default: newInvocationId — the creation
   * time, then 128 random bits (docs/journal.md#invocation-ids).
   */
  newId?: () => string;
}

export { newInvocationId };

const BUILT_IN = new Set(['sqlite', 'file', 'memory']);

export function createInvocationRuntime(deps: InvocationRuntimeDeps): InvocationRuntime {
  let store: InvocationStore | null;
  let unsupportedReason: string | null = null;
  if (deps.invocationStore === null) {
    store = null;
    unsupportedReason = 'invocation_store_unsupported: disabled explicitly (invocationStore: null)';
  } else if (deps.invocationStore === undefined) {
    store = null;
    unsupportedReason = deps.customScopeStore
      ? 'invocation_store_unsupported: a custom scope store was supplied without an explicit invocation store'
      : 'invocation_store_unsupported: no invocation store configured';
  } else {
    const s = deps.invocationStore;
    store = withRecordValidation(s, { trusted: BUILT_IN.has(s.kind ?? '') });
  }

  const now = deps.now ?? (() => new Date());
  const journals = new Map<string, SessionJournal>();
  const checks = new Map<string, { fingerprint: string; check: ScopeCheck }>();

  const ctx: RuntimeContext = {
    hub: deps.hub,
    store,
    unsupportedReason,
    scopeStore: deps.scopeStore,
    now,
    newId: deps.newId ?? (() => newInvocationId()),
    journal(sessionId) {
      let j = journals.get(sessionId);
      if (!j) journals.set(sessionId, (j = new SessionJournal(sessionId, store, now)));
      return j;
    },
    async revalidate(scope: SessionScope, signal?: AbortSignal) {
      const check = await revalidateScopeWith(deps.hub, scope, { signal });
      checks.set(scope.sessionId, { fingerprint: scope.fingerprint, check });
      return check;
    },
    lastScopeCheck(sessionId, fingerprint) {
      const c = checks.get(sessionId);
      return c && c.fingerprint === fingerprint ? c.check : null;
    },
  };

  return {
    invokeGoverned: (session, call, opts) => invokeGoverned(ctx, session, call, opts),
    getSessionInvocationStatus: (sessionId) => sessionStatus(ctx, sessionId, { restore: false }),
    restoreSessionInvocations: (sessionId) => sessionStatus(ctx, sessionId, { restore: true }),
    inspectSessionInvocation: (session, id, opts) => inspectInvocation(ctx, session, id, opts),
    resumeSessionInvocation: (session, id, opts) => resumeInvocation(ctx, session, id, opts),
    attestSessionInvocation: (session, id, attestation, opts) =>
      attestInvocation(ctx, session, id, attestation, opts),
    revalidateScope: (scope, opts) => ctx.revalidate(scope, opts?.signal),
  };
}
