/**
 * getSessionInvocationStatus / restoreSessionInvocations. Both are local: they read the scope
 * store and the journal and make NO Hub request (no run, no invoke, no resume, not even a read).
 * Scope verification here is local (the scope record exists and every entry is bound to it)
 * plus the latest whole-scope check this runtime made with revalidateScope.
 * Restore additionally flushes unsaved records under their original identity (CAS).
 */
import type { InvocationStatus, InvocationStatusEntry, SessionScope } from '../invocation-ports.js';
import type { RuntimeContext } from '../invocations/context.js';
import { bindingMatchesScope } from '../invocations/entries.js';
import type { SessionJournal } from '../invocations/session-journal.js';

export function statusEntries(journal: SessionJournal): InvocationStatusEntry[] {
  return journal.entries().map((e) => ({
    invocation_id: e.invocation_id,
    authorization_ref: e.authorization_ref,
    tool: e.tool,
    original_run_id: e.run_id,
    last_known_state: e.last_state,
    retry_at: e.retry_at,
    result_verified: false,
  }));
}

type ScopeLoad = { ok: true; scope: SessionScope | null } | { ok: false };

async function loadScope(ctx: RuntimeContext, sessionId: string): Promise<ScopeLoad> {
  try {
    return { ok: true, scope: await ctx.scopeStore.load(sessionId) };
  } catch {
    return { ok: false };
  }
}

export async function sessionStatus(
  ctx: RuntimeContext,
  sessionId: string,
  opts: { restore: boolean },
): Promise<InvocationStatus> {
  const scopeLoad = await loadScope(ctx, sessionId);
  const scope = scopeLoad.ok ? scopeLoad.scope : null;
  const journal = ctx.journal(sessionId);

  if (!ctx.store) {
    if (scopeLoad.ok && (scope === null || scope.members.length === 0) && journal.entries().length === 0) {
      return {
        state: 'inactive',
        entries: [],
        unsavedRecords: [],
        reason: scope === null ? 'session_not_started' : 'no_business_scope',
      };
    }
    return {
      state: 'unsupported',
      entries: statusEntries(journal),
      unsavedRecords: [],
      reason: ctx.unsupportedReason ?? 'invocation_store_unsupported',
    };
  }

  await journal.ensureLoaded(); // a failed load stays visible as loadError (storage_error), retried next time
  if (opts.restore && journal.loaded) {
    await journal.serialize(async () => {
      if (journal.dirty.size > 0 || journal.unsaved.size > 0) await journal.flushMerged();
    });
  }

  const entries = statusEntries(journal);
  const hasRecords = entries.length > 0 || journal.unsaved.size > 0;
  if (scopeLoad.ok && !journal.loadError && !hasRecords && (scope === null || scope.members.length === 0)) {
    // No selected business scope / not started: nothing to recover, nothing asked of the Hub.
    return {
      state: 'inactive',
      entries: [],
      unsavedRecords: [],
      reason: scope === null ? 'session_not_started' : 'no_business_scope',
      ...(journal.saved ? { revision: journal.saved.revision } : {}),
    };
  }

  // Scope / binding verification (local, plus the remembered whole-scope check).
  let scopeBlock: string | null = null;
  let offline: string | null = null;
  if (!scopeLoad.ok || scope === null) scopeBlock = 'invocation_binding_unavailable';
  else if (journal.entries().some((e) => !bindingMatchesScope(e, scope)))
    scopeBlock = 'invocation_binding_conflict';
  else if ([...journal.conflicts.values()].some((c) => c.reason === 'invocation_binding_conflict'))
    scopeBlock = 'invocation_binding_conflict';
  else {
    const check = ctx.lastScopeCheck(sessionId, scope.fingerprint);
    if (check?.state === 'blocked') scopeBlock = check.reason;
    else if (check?.state === 'offline') offline = check.reason;
  }

  const lock = ctx.store.inspectLock ? await ctx.store.inspectLock(sessionId).catch(() => null) : null;
  const base: InvocationStatus = {
    state: 'ready',
    entries,
    unsavedRecords: journal.unsavedRecords(),
    ...(journal.saved ? { revision: journal.saved.revision } : {}),
    ...(lock ? { lock } : {}),
  };

  const storageReason =
    journal.loadError?.code ??
    (journal.unsaved.size > 0 ? (journal.lastError?.code ?? [...journal.unsaved.values()][0]!.reason) : null);
  if (storageReason) {
    // Storage stays primary; a blocked scope is reported alongside, never instead.
    return {
      ...base,
      state: 'storage_error',
      reason: storageReason,
      scope_state: scopeBlock ? 'blocked' : offline ? 'offline' : 'ok',
      ...(scopeBlock ? { scope_reason: scopeBlock } : offline ? { scope_reason: offline } : {}),
    };
  }
  if (scopeBlock)
    return {
      ...base,
      state: 'blocked',
      reason: scopeBlock,
      scope_state: 'blocked',
      scope_reason: scopeBlock,
    };
  return { ...base, scope_state: offline ? 'offline' : 'ok', ...(offline ? { scope_reason: offline } : {}) };
}
