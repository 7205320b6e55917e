/**
 * What a demo system remembers: the append-only write ledger, the settled result per idempotency
 * key (for replays and the operations look-up), the request log and the concurrency counter.
 */
import type { ConcurrencyStats, LedgerEntry, RequestLogEntry, SettledOperation } from '../types.js';

export interface StoredOutcome extends SettledOperation {
  fingerprint: string; // method + path + body digest of the request that settled the key
}

export interface SystemRecords {
  appendLedger(entry: Omit<LedgerEntry, 'seq' | 'at'>): LedgerEntry;
  ledger(): LedgerEntry[];
  settle(outcome: Omit<StoredOutcome, 'recorded_at'>): StoredOutcome;
  settled(key: string): StoredOutcome | undefined;
  startRequest(
    entry: Omit<RequestLogEntry, 'seq' | 'at' | 'in_flight_at_start'>,
    countsInFlight: boolean,
  ): RequestLogEntry;
  finishInFlight(): void;
  requests(): RequestLogEntry[];
  concurrency(): ConcurrencyStats;
}

const clone = <T>(v: T): T => structuredClone(v);

export function createSystemRecords(now: () => Date = () => new Date()): SystemRecords {
  const ledger: LedgerEntry[] = [];
  const outcomes = new Map<string, StoredOutcome>();
  const requests: RequestLogEntry[] = [];
  let current = 0;
  let maxObserved = 0;

  return {
    appendLedger(entry) {
      const full: LedgerEntry = { ...clone(entry), seq: ledger.length + 1, at: now().toISOString() };
      ledger.push(full);
      return clone(full);
    },
    ledger: () => ledger.map(clone),
    settle(outcome) {
      const full: StoredOutcome = { ...clone(outcome), recorded_at: now().toISOString() };
      outcomes.set(full.idempotency_key, full);
      return clone(full);
    },
    settled(key) {
      const o = outcomes.get(key);
      return o ? clone(o) : undefined;
    },
    startRequest(entry, countsInFlight) {
      if (countsInFlight) {
        current += 1;
        if (current > maxObserved) maxObserved = current;
      }
      // The entry object stays mutable inside the system so the handler can complete it.
      const full: RequestLogEntry = {
        ...entry,
        seq: requests.length + 1,
        at: now().toISOString(),
        in_flight_at_start: countsInFlight ? current : 0,
      };
      requests.push(full);
      return full;
    },
    finishInFlight() {
      current = Math.max(0, current - 1);
    },
    requests: () => requests.map(clone),
    concurrency: () => ({ current, max_observed: maxObserved }),
  };
}
