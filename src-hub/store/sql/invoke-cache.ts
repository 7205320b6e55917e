/**
 * The rows an invoke reads that change only with the configuration — the authorization, its grant
 * to the client, the tool's current declaration and the system — kept in memory by the store that
 * reads them (SQLite: its main thread), each under the configuration generation it was read with
 * (ops/config-generation.ts). An entry answers a call only while the generation the call reads is
 * still the one it was read with: every write of those rows, by any process, sets a new generation
 * in its own transaction, so a revoke, a retire, a new declaration or a re-sealed secret is seen
 * by the first call whose read transaction sees that write. Only complete answers are kept (a
 * granted authorization with its declaration and system): a refusal is read again each time.
 */
import type { AuthorizationRecord, OperationRecord, SystemRecord } from '../types.js';
import { deepFreeze } from './deep-freeze.js';

/** The most (authorization, client, tool) answers kept; the cache is emptied when it is full. */
export const MAX_INVOKE_CACHE_ENTRIES = 2_048;

export interface InvokeCacheEntry {
  generation: string | null;
  authorization: AuthorizationRecord;
  granted: true;
  operation: OperationRecord;
  system: SystemRecord;
}

export interface InvokeReadsCache {
  get(authorizationRef: string, clientId: string, tool: string): InvokeCacheEntry | undefined;
  set(authorizationRef: string, clientId: string, tool: string, entry: InvokeCacheEntry): void;
}

export function createInvokeReadsCache(max = MAX_INVOKE_CACHE_ENTRIES): InvokeReadsCache {
  const entries = new Map<string, InvokeCacheEntry>();
  // length-prefixed: a request's ref and tool may hold any character, and no two triples share a key
  const key = (ref: string, clientId: string, tool: string) =>
    `${ref.length}:${ref}${clientId.length}:${clientId}${tool}`;
  return {
    get: (ref, clientId, tool) => entries.get(key(ref, clientId, tool)),
    set(ref, clientId, tool, entry) {
      if (entries.size >= max) entries.clear();
      entries.set(key(ref, clientId, tool), deepFreeze(entry));
    },
  };
}
