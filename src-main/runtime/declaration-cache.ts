/**
 * The session's declaration cache (docs/design.md#what-the-product-does-for-that).
 * Keyed by (hub, authorization_ref, tool, declaration_revision); keeps each declaration exactly as
 * the Hub returned it (original target and FULL input schema). Bounded by entries and bytes with
 * least-recently-used eviction. Lives in memory only: a restart starts empty (discovery again).
 * Holding one (authorization, tool) at a time: a newer revision replaces the older one.
 */
import type { Declaration } from '../../src-shared/hub-api.js';
import { baseFunctionName, disambiguatedName, RESERVED_FUNCTIONS } from './function-names.js';

export interface CachedDeclaration {
  key: string;
  functionName: string;
  declaration: Declaration;
  bytes: number;
}

export interface DeclarationCacheOptions {
  maxEntries?: number;
  maxBytes?: number;
}

export type EvictionReason =
  'capacity' | 'declaration_changed' | 'authorization_changed' | 'replaced' | 'cleared';

export interface DeclarationCache {
  /** Adds or refreshes declarations; returns the cached entries in input order (skipping ones too large to hold). */
  put(declarations: Declaration[]): CachedDeclaration[];
  /** Looks up a model-visible function name (and marks it recently used). */
  byFunctionName(name: string): CachedDeclaration | null;
  byKey(key: string): CachedDeclaration | null;
  evict(key: string, reason: EvictionReason): CachedDeclaration | null;
  /** Drops every declaration of one authorization (revoked / rebound). */
  dropAuthorization(authorizationRef: string, reason: EvictionReason): CachedDeclaration[];
  clear(): void;
  /** Most recently used first. */
  list(): CachedDeclaration[];
  stats(): { entries: number; bytes: number; maxEntries: number; maxBytes: number };
  /** Recent evictions (bounded), so the model can be told why a name disappeared. */
  evictedReason(functionName: string): EvictionReason | null;
}

export function declarationKey(
  d: Pick<Declaration, 'hub_id' | 'authorization_ref' | 'tool' | 'declaration_revision'>,
): string {
  return JSON.stringify([d.hub_id, d.authorization_ref, d.tool, d.declaration_revision]);
}

export function createDeclarationCache(opts: DeclarationCacheOptions = {}): DeclarationCache {
  const maxEntries = Math.max(1, opts.maxEntries ?? 64);
  const maxBytes = Math.max(1024, opts.maxBytes ?? 512 * 1024);
  // Map iteration order = recency (re-inserted on use); first = least recently used.
  const entries = new Map<string, CachedDeclaration>();
  const names = new Map<string, string>(); // identity (hub, auth, tool) -> function name
  const byName = new Map<string, string>(); // function name -> key
  const evicted = new Map<string, EvictionReason>();
  let bytes = 0;

  const identity = (d: Declaration) => JSON.stringify([d.hub_id, d.authorization_ref, d.tool]);

  function nameFor(d: Declaration): string {
    const id = identity(d);
    const known = names.get(id);
    if (known) return known;
    let name = baseFunctionName(d.authorization_ref, d.tool);
    const taken = (n: string) =>
      (RESERVED_FUNCTIONS as readonly string[]).includes(n) || [...names.values()].includes(n);
    if (taken(name)) name = disambiguatedName(d.authorization_ref, d.tool);
    let i = 2;
    const base = name;
    while (taken(name)) name = `${base.slice(0, 60)}_${i++}`;
    names.set(id, name);
    return name;
  }

  function remove(key: string, reason: EvictionReason): CachedDeclaration | null {
    const e = entries.get(key);
    if (!e) return null;
    entries.delete(key);
    bytes -= e.bytes;
    if (byName.get(e.functionName) === key) byName.delete(e.functionName);
    if (reason !== 'replaced') {
      evicted.set(e.functionName, reason);
      if (evicted.size > 256) evicted.delete(evicted.keys().next().value as string);
    }
    return e;
  }

  function touch(e: CachedDeclaration): void {
    entries.delete(e.key);
    entries.set(e.key, e);
  }

  return {
    put(declarations) {
      const out: CachedDeclaration[] = [];
      for (const d of declarations) {
        const key = declarationKey(d);
        const size = Buffer.byteLength(JSON.stringify(d));
        if (size > maxBytes) continue;
        const existing = entries.get(key);
        if (existing) {
          touch(existing);
          out.push(existing);
          continue;
        }
        const functionName = nameFor(d);
        const previousKey = byName.get(functionName);
        if (previousKey) remove(previousKey, 'replaced');
        const entry: CachedDeclaration = { key, functionName, declaration: structuredClone(d), bytes: size };
        entries.set(key, entry);
        byName.set(functionName, key);
        evicted.delete(functionName);
        bytes += size;
        out.push(entry);
        while (entries.size > maxEntries || bytes > maxBytes) {
          const oldest = entries.keys().next().value as string;
          if (oldest === key) break;
          remove(oldest, 'capacity');
        }
      }
      return out.filter((e) => entries.has(e.key));
    },
    byFunctionName(name) {
      const key = byName.get(name);
      const e = key ? entries.get(key) : undefined;
      if (!e) return null;
      touch(e);
      return e;
    },
    byKey: (key) => entries.get(key) ?? null,
    evict: (key, reason) => remove(key, reason),
    dropAuthorization(authorizationRef, reason) {
      const gone: CachedDeclaration[] = [];
      for (const e of [...entries.values()]) {
        if (e.declaration.authorization_ref === authorizationRef) {
          remove(e.key, reason);
          gone.push(e);
        }
      }
      return gone;
    },
    clear() {
      for (const key of [...entries.keys()]) remove(key, 'cleared');
    },
    list: () => [...entries.values()].reverse(),
    stats: () => ({ entries: entries.size, bytes, maxEntries, maxBytes }),
    evictedReason: (name) => evicted.get(name) ?? null,
  };
}
