/**
 * What a demo system remembers about its traffic, in memory only: the request log and the
 * concurrency counter (diagnostics of this process's run). What a write changes — business state,
 * ledger, settled keys — is kept by the business store (./business-store.ts).
 */
import type { ConcurrencyStats, RequestLogEntry } from '../types.js';

export interface SystemRecords {
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
  const requests: RequestLogEntry[] = [];
  let current = 0;
  let maxObserved = 0;

  return {
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
