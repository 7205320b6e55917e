/**
 * One session's invocation journal as this runtime holds it: the last record confirmed stored,
 * the local view of every entry, and the entries whose latest local version is not yet stored
 * (`unsavedRecords`). All saves of a session are serialized here and use CAS.
 *
 * - `direct` saves compare against the last revision this runtime confirmed. A failure keeps the
 *   changed entries unsaved (state `storage_error`); nothing is retried automatically.
 * - `restore` (restoreSessionInvocations) reloads the stored record and flushes each unsaved entry
 *   under its original identity: an entry already stored exactly (a lost acknowledgement) is
 *   adopted; an entry whose stored outcome is still the one this runtime last saw or tried to
 *   save is advanced; a stored entry with a different outcome (another writer) is NEVER
 *   overwritten: both are kept for inspection. The save itself is again a CAS.
 * - `authoritative` is used for a receipt just read from the Hub: fresh server evidence supersedes
 *   a conflicting stored outcome for that one entry (binding still checked).
 */
import {
  JournalError,
  journalCodeOf,
  toV2,
  type InvocationStore,
  type JournalEntry,
  type JournalRecordV2,
} from '../../journal/index.js';
import { JOURNAL_SCHEMA_V2 } from '../../journal/index.js';
import type { UnsavedRecord } from '../invocation-ports.js';
import { isLaterState, outcomeKey, sameBinding, sameEntry } from './entries.js';

export type SaveMode = 'direct' | 'restore' | 'authoritative';

export interface EntryConflict {
  stored: JournalEntry;
  local: JournalEntry;
  reason: 'invocation_store_conflict' | 'invocation_binding_conflict';
}

export interface SaveResult {
  ok: boolean;
  error: JournalError | null;
}

export class SessionJournal {
  loaded = false;
  loadError: JournalError | null = null;
  saved: JournalRecordV2 | null = null;
  readonly local = new Map<string, JournalEntry>();
  readonly order: string[] = [];
  readonly dirty = new Set<string>();
  readonly attempted = new Map<string, Set<string>>();
  /** For each dirty entry: the stored outcome its local change was derived from (null = not stored then). */
  readonly bases = new Map<string, string | null>();
  private savedIndex = new Map<string, JournalEntry>();
  readonly unsaved = new Map<string, UnsavedRecord>();
  readonly conflicts = new Map<string, EntryConflict>();
  lastError: JournalError | null = null;
  private chain: Promise<unknown> = Promise.resolve();

  constructor(
    readonly sessionId: string,
    private readonly store: InvocationStore | null,
    private readonly now: () => Date,
  ) {}

  /** Runs `fn` after every earlier journal operation of this session has finished. */
  serialize<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.chain.then(fn, fn);
    this.chain = run.catch(() => undefined);
    return run;
  }

  get hasStore(): boolean {
    return this.store !== null;
  }

  entries(): JournalEntry[] {
    return this.order.map((id) => this.local.get(id)).filter((e): e is JournalEntry => e !== undefined);
  }

  unsavedRecords(): UnsavedRecord[] {
    return [...this.unsaved.values()].map((u) => ({ ...u }));
  }

  /** Loads the stored record once (again after a failed load). Errors stay visible as loadError. */
  async ensureLoaded(): Promise<void> {
    if (this.loaded || !this.store) return;
    await this.serialize(async () => {
      if (this.loaded || !this.store) return;
      try {
        const record = await this.store.load(this.sessionId);
        if (record === undefined)
          throw new JournalError('invocation_store_unavailable', 'invocation store returned no answer');
        this.adoptStored(record ? toV2(record) : null, new Set());
        this.loaded = true;
        this.loadError = null;
      } catch (err) {
        this.loadError =
          err instanceof JournalError
            ? err
            : new JournalError(journalCodeOf(err), 'invocation store load failed');
      }
    });
  }

  /** Replace the local view of every clean entry with the stored one; keep dirty entries. */
  private adoptStored(record: JournalRecordV2 | null, keepDirty: Set<string>): void {
    this.saved = record;
    this.savedIndex = new Map((record?.entries ?? []).map((e) => [e.invocation_id, e] as const));
    const dirtyEntries = [...keepDirty].map((id) => [id, this.local.get(id)] as const);
    const newOrder: string[] = [];
    this.local.clear();
    for (const e of record?.entries ?? []) {
      this.local.set(e.invocation_id, e);
      newOrder.push(e.invocation_id);
    }
    for (const [id, e] of dirtyEntries) {
      if (!e) continue;
      if (!this.local.has(id)) newOrder.push(id);
      this.local.set(id, e);
    }
    this.order.splice(0, this.order.length, ...newOrder);
  }

  private markUnsaved(
    ids: Iterable<string>,
    reason: string,
    extra?: (id: string) => Partial<UnsavedRecord>,
  ): void {
    const since = this.now().toISOString();
    for (const id of ids) {
      const prev = this.unsaved.get(id);
      this.unsaved.set(id, {
        invocation_id: id,
        reason,
        since: prev?.since ?? since,
        ...(extra ? extra(id) : {}),
      });
    }
  }

  private buildNext(base: JournalRecordV2 | null, apply: Map<string, JournalEntry>): JournalRecordV2 {
    const entries: JournalEntry[] = [];
    const seen = new Set<string>();
    for (const e of base?.entries ?? []) {
      seen.add(e.invocation_id);
      entries.push(apply.get(e.invocation_id) ?? e);
    }
    for (const id of this.order) if (apply.has(id) && !seen.has(id)) entries.push(apply.get(id)!);
    for (const [id, e] of apply) if (!seen.has(id) && !this.order.includes(id)) entries.push(e);
    return {
      schema: JOURNAL_SCHEMA_V2,
      sessionId: this.sessionId,
      revision: (base?.revision ?? 0) + 1,
      entries,
    };
  }

  /** Set local versions (without saving). Used where a save must not be attempted. */
  setLocal(entry: JournalEntry): void {
    if (!this.dirty.has(entry.invocation_id)) {
      const stored = this.savedIndex.get(entry.invocation_id);
      this.bases.set(entry.invocation_id, stored ? outcomeKey(stored) : null);
    }
    if (!this.local.has(entry.invocation_id)) this.order.push(entry.invocation_id);
    this.local.set(entry.invocation_id, entry);
    this.dirty.add(entry.invocation_id);
  }

  /** Apply local changes and save them. Must be called inside serialize(). */
  async commit(changes: JournalEntry[], mode: SaveMode): Promise<SaveResult> {
    for (const e of changes) {
      this.setLocal(e);
      let set = this.attempted.get(e.invocation_id);
      if (!set) this.attempted.set(e.invocation_id, (set = new Set()));
      set.add(outcomeKey(e));
    }
    if (!this.store) return { ok: true, error: null };
    if (mode === 'direct') return this.flushDirect();
    return this.flushMerged(
      mode === 'authoritative' ? new Set(changes.map((c) => c.invocation_id)) : new Set(),
    );
  }

  private async flushDirect(): Promise<SaveResult> {
    if (this.dirty.size === 0) return { ok: true, error: null };
    if (!this.loaded) {
      const err =
        this.loadError ?? new JournalError('invocation_store_unavailable', 'invocation journal not loaded');
      this.markUnsaved(this.dirty, err.code);
      this.lastError = err;
      return { ok: false, error: err };
    }
    // Entries in conflict with a different stored outcome are never written by a direct save:
    // only restore (merge rules) or a fresh receipt (authoritative) may resolve them.
    const apply = new Map(
      [...this.dirty].filter((id) => !this.conflicts.has(id)).map((id) => [id, this.local.get(id)!] as const),
    );
    if (apply.size === 0)
      return {
        ok: false,
        error:
          this.lastError ??
          new JournalError(
            'invocation_store_conflict',
            'unsaved entries are in conflict with the stored record',
          ),
      };
    const next = this.buildNext(this.saved, apply);
    try {
      const saved = await this.store!.save(this.sessionId, next, this.saved?.revision ?? null);
      this.afterSaved(toV2(saved), [...apply.keys()]);
      return { ok: true, error: null };
    } catch (err) {
      const e =
        err instanceof JournalError
          ? err
          : new JournalError(journalCodeOf(err), 'invocation store save failed');
      this.markUnsaved(apply.keys(), e.code);
      this.lastError = e;
      return { ok: false, error: e };
    }
  }

  private afterSaved(saved: JournalRecordV2, ids: string[]): void {
    const stillDirty = new Set([...this.dirty].filter((id) => !ids.includes(id)));
    for (const id of ids) {
      this.dirty.delete(id);
      this.unsaved.delete(id);
      this.conflicts.delete(id);
      this.attempted.delete(id);
      this.bases.delete(id);
    }
    this.adoptStored(saved, stillDirty);
    if (this.unsaved.size === 0) this.lastError = null;
  }

  /** Restore: reload, merge each dirty entry under its original identity, CAS-save. Must be called inside serialize(). */
  async flushMerged(force: Set<string> = new Set()): Promise<SaveResult> {
    let stored: JournalRecordV2 | null;
    try {
      const r = await this.store!.load(this.sessionId);
      if (r === undefined)
        throw new JournalError('invocation_store_unavailable', 'invocation store returned no answer');
      stored = r ? toV2(r) : null;
      this.loaded = true;
      this.loadError = null;
    } catch (err) {
      const e =
        err instanceof JournalError
          ? err
          : new JournalError(journalCodeOf(err), 'invocation store load failed');
      if (!this.loaded) this.loadError = e;
      if (this.dirty.size > 0) this.markUnsaved(this.dirty, e.code);
      this.lastError = e;
      return { ok: false, error: e };
    }
    const storedById = new Map((stored?.entries ?? []).map((e) => [e.invocation_id, e] as const));
    const apply = new Map<string, JournalEntry>();
    const alreadyStored: string[] = [];
    /** Local changes the stored record already supersedes with later evidence: the stored entry is adopted. */
    const superseded: string[] = [];
    for (const id of this.dirty) {
      const local = this.local.get(id);
      if (!local) continue;
      const s = storedById.get(id);
      if (!s) {
        apply.set(id, local);
        continue;
      }
      if (!sameBinding(s, local)) {
        this.conflicts.set(id, { stored: s, local, reason: 'invocation_binding_conflict' });
        this.markUnsaved([id], 'invocation_binding_conflict', () => ({
          local_state: local.last_state,
          stored_state: s.last_state,
        }));
        continue;
      }
      if (sameEntry(s, local)) {
        alreadyStored.push(id);
        continue;
      }
      const base = this.bases.get(id);
      const ours =
        (base !== undefined && base !== null && base === outcomeKey(s)) ||
        this.attempted.get(id)?.has(outcomeKey(s)) === true;
      if (ours) {
        apply.set(id, local);
        continue;
      }
      if (force.has(id)) {
        // A receipt just read from the Hub: it replaces an earlier or equal stored state, but a
        // stored state that is already later (another writer read the Hub after us) is kept.
        if (s.last_state === local.last_state || isLaterState(s.last_state, local.last_state)) {
          apply.set(id, local);
          continue;
        }
        if (isLaterState(local.last_state, s.last_state)) {
          superseded.push(id);
          continue;
        }
      }
      // A different stored outcome from another writer: never overwrite it with ours. Keep both.
      this.conflicts.set(id, { stored: s, local, reason: 'invocation_store_conflict' });
      this.markUnsaved([id], 'invocation_store_conflict', () => ({
        local_state: local.last_state,
        stored_state: s.last_state,
      }));
    }
    for (const c of this.conflicts.values()) {
      this.lastError = new JournalError(
        c.reason === 'invocation_binding_conflict' ? 'invocation_store_conflict' : c.reason,
        'a stored entry differs from the unsaved local one; both are kept for inspection',
      );
    }
    for (const id of superseded) this.local.set(id, storedById.get(id)!);
    alreadyStored.push(...superseded);
    if (apply.size === 0) {
      // Nothing to write: no revision bump. Adopt what is stored; keep conflicted entries local.
      this.afterSaved(stored ?? this.saved ?? emptyRecord(this.sessionId), alreadyStored);
      if (stored === null) this.saved = null;
      return this.unsaved.size === 0 ? { ok: true, error: null } : { ok: false, error: this.lastError };
    }
    const next = this.buildNext(stored, apply);
    try {
      const saved = await this.store!.save(this.sessionId, next, stored?.revision ?? null);
      this.afterSaved(toV2(saved), [...apply.keys(), ...alreadyStored]);
      return this.unsaved.size === 0 ? { ok: true, error: null } : { ok: false, error: this.lastError };
    } catch (err) {
      const e =
        err instanceof JournalError
          ? err
          : new JournalError(journalCodeOf(err), 'invocation store save failed');
      this.markUnsaved(apply.keys(), e.code);
      this.lastError = e;
      return { ok: false, error: e };
    }
  }
}

function emptyRecord(sessionId: string): JournalRecordV2 {
  return { schema: JOURNAL_SCHEMA_V2, sessionId, revision: 0, entries: [] };
}
