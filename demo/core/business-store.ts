/**
 * Where a demo system keeps what a write changes: its business state (products, stock), the
 * append-only write ledger and the settled result per idempotency key (replays and the operations
 * look-up). One commit holds all three, so a write is either wholly kept or not at all. Two
 * implementations: in memory (tests, `npm run demo:systems` without `--data`) and a SQLite file in
 * the data folder (./sqlite-store.ts, the embedded default). See docs/business-systems.md.
 */
import type { z } from 'zod';
import type { DemoDataStatus, LedgerEntry, SettledOperation } from '../types.js';

export interface StoredOutcome extends SettledOperation {
  fingerprint: string; // method + path + body digest of the request that settled the key
}

export type DataStatus = DemoDataStatus;

export interface Commit<S> {
  /** The business state after the write; null when the write changed nothing (a refusal). */
  state: S | null;
  ledger: Omit<LedgerEntry, 'seq' | 'at'> | null;
  outcome: Omit<StoredOutcome, 'recorded_at'>;
}

export interface ResetResult {
  /** The unusable file kept aside under this name (never deleted), or null. */
  set_aside: string | null;
}

export interface BusinessStore<S> {
  /**
   * The business state to start from: the stored one, or `seed()` written on first start only.
   * Throws DemoDataError when the file cannot be used (nothing is written over it).
   */
  open(seed: () => S): S;
  /** The last state committed (what to go back to after a failed commit). */
  committed(): S;
  /** Keeps state, ledger entry and outcome in one transaction, on disk before it returns. Throws DemoDataWriteError. */
  commit(c: Commit<S>): { ledger: LedgerEntry | null; outcome: StoredOutcome };
  ledger(): LedgerEntry[];
  settled(key: string): StoredOutcome | undefined;
  /**
   * Business state back to `seed`; the ledger and the settled keys are kept (so a look-up of a call
   * made before the reset still tells the truth and a repeat of it writes nothing). An unusable
   * file is set aside first and a new one made.
   */
  reset(seed: S): ResetResult;
  status(): DataStatus;
  close(): void;
}

/** What a system tells the store about its business state. */
export interface BusinessData<S> {
  /** The initial state; `previous` is the state being reset (to carry counters that must keep counting). */
  seed(previous: S | null): S;
  snapshot(): S;
  restore(state: S): void;
  /** Checks a stored state read back from disk (files are input from outside). */
  schema: z.ZodType<S>;
}

const clone = <T>(v: T): T => structuredClone(v);

export function createMemoryStore<S>(now: () => Date = () => new Date()): BusinessStore<S> {
  const ledger: LedgerEntry[] = [];
  const outcomes = new Map<string, StoredOutcome>();
  let state: S | null = null;
  let seededAt: string | null = null;
  let resetAt: string | null = null;
  const current = (): S => {
    if (state === null) throw new Error('the store is not open');
    return clone(state);
  };
  return {
    open(seed) {
      state = clone(seed());
      seededAt = now().toISOString();
      return clone(state);
    },
    committed: current,
    commit(c) {
      const at = now().toISOString();
      let entry: LedgerEntry | null = null;
      if (c.ledger) {
        entry = { ...clone(c.ledger), seq: ledger.length + 1, at };
        ledger.push(entry);
      }
      const outcome: StoredOutcome = { ...clone(c.outcome), recorded_at: at };
      outcomes.set(outcome.idempotency_key, outcome);
      if (c.state !== null) state = clone(c.state);
      return { ledger: entry && clone(entry), outcome: clone(outcome) };
    },
    ledger: () => ledger.map(clone),
    settled(key) {
      const o = outcomes.get(key);
      return o ? clone(o) : undefined;
    },
    reset(seed) {
      state = clone(seed);
      resetAt = now().toISOString();
      return { set_aside: null };
    },
    status: () => ({
      storage: 'memory',
      state: 'ok',
      file: null,
      seeded_at: seededAt,
      reset_at: resetAt,
      detail: null,
    }),
    close() {},
  };
}
