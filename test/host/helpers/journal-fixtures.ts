/** Builders for journal records and entries, and store wrappers that inject storage faults. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  JournalError,
  createFileInvocationStore,
  createMemoryInvocationStore,
  createSqliteInvocationStore,
  type InvocationStore,
  type JournalEntry,
  type JournalRecordV2,
  type StoredJournalRecord,
} from '../../../src-main/journal/index.js';

let counter = 0;
export function entry(over: Partial<JournalEntry> = {}): JournalEntry {
  counter += 1;
  return {
    invocation_id: `inv_test_${counter.toString().padStart(6, '0')}`,
    agent_session_id: 'sess-1',
    hub_id: 'hub-1',
    client_id: 'client-1',
    workspace_id: 'ws-1',
    connection_key: 'http://127.0.0.1:1#client-1',
    scope_fingerprint: 'f'.repeat(64),
    scope_revision: 1,
    authorization_ref: 'auth-shop-a',
    run_id: 'run_1',
    tool: 'update_product_content',
    declaration_revision: 'rev-1',
    host_call_id: `call_${counter}`,
    parameter_digest: 'a'.repeat(64),
    task_id: null,
    last_state: 'pending_dispatch',
    receipt_digest: null,
    retry_at: null,
    ...over,
  };
}

export function record(sessionId: string, revision: number, entries: JournalEntry[]): JournalRecordV2 {
  return { schema: 'bailing.agent-invocations.v2', sessionId, revision, entries };
}

export interface StoreKind {
  name: 'sqlite' | 'file' | 'memory';
  /** Opens the store at the given place (the same place reopens the same data). */
  open(place: string): InvocationStore;
  /** A place for this store kind inside a temp dir. */
  place(dir: string): string;
}

export const STORE_KINDS: StoreKind[] = [
  {
    name: 'sqlite',
    open: (p) => createSqliteInvocationStore({ path: p }),
    place: (d) => join(d, 'journal.sqlite'),
  },
  {
    name: 'file',
    open: (p) => createFileInvocationStore({ directory: p }),
    place: (d) => join(d, 'invocation-records'),
  },
  { name: 'memory', open: () => createMemoryInvocationStore(), place: (d) => d },
];

export function tempDir(prefix = 'bailing-journal-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface FaultPlan {
  /** Fail the Nth save (1-based) before it reaches the store. */
  failSaveBefore?: number[];
  /** Let the Nth save commit, then throw as if the acknowledgement was lost. */
  commitThenThrow?: number[];
  /** Fail every save while true. */
  unavailable?: boolean;
  /** Fail every load while true. */
  loadUnavailable?: boolean;
  /** Delay each save by this many ms (before it reaches the store). */
  saveDelayMs?: number;
}

/** Wraps a real store; injected failures are coded like real ones. Counts calls. */
export function faulty(
  inner: InvocationStore,
  plan: FaultPlan,
): InvocationStore & { saves: number; loads: number; plan: FaultPlan } {
  const wrapper = {
    kind: `faulty-${inner.kind ?? 'custom'}`,
    persistent: inner.persistent ?? true,
    saves: 0,
    loads: 0,
    plan,
    async load(sessionId: string) {
      wrapper.loads += 1;
      if (plan.loadUnavailable)
        throw new JournalError('invocation_store_unavailable', 'injected load failure');
      return inner.load(sessionId);
    },
    async save(sessionId: string, next: StoredJournalRecord, expected: number | null) {
      wrapper.saves += 1;
      const n = wrapper.saves;
      if (plan.saveDelayMs) await new Promise((r) => setTimeout(r, plan.saveDelayMs));
      if (plan.unavailable || plan.failSaveBefore?.includes(n))
        throw new JournalError('invocation_store_unavailable', `injected failure of save ${n}`);
      const saved = await inner.save(sessionId, next, expected);
      if (plan.commitThenThrow?.includes(n))
        throw new JournalError('invocation_store_unavailable', `injected lost acknowledgement of save ${n}`);
      return saved;
    },
    ...(inner.inspectLock ? { inspectLock: inner.inspectLock.bind(inner) } : {}),
  };
  return wrapper;
}
