/**
 * One store, two dialects, sync and async. Every store operation is written once, as a generator
 * that yields its queries (`yield* io(s.get(...))`) against a `SqlSession`:
 *   - SQLite (better-sqlite3) answers each query synchronously, so `runSync` drives the generator
 *     inside one synchronous transaction (in the store's writer thread, or on the main thread for
 *     reads);
 *   - PostgreSQL (pg) answers with promises, so `runAsync` awaits each one inside its transaction.
 * Queries use `?` placeholders in both dialects; the PostgreSQL session numbers them.
 */
import type { Dialect } from './dialect.js';

export type Awaitable<T> = T | Promise<T>;
export type SqlValue = string | number | bigint | null;
export type Row = Record<string, unknown>;

export interface SqlSession {
  readonly dialect: Dialect;
  all<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Awaitable<T[]>;
  get<T extends object = Row>(sql: string, params?: readonly SqlValue[]): Awaitable<T | undefined>;
  /** Runs a statement; answers the number of rows it changed. */
  run(sql: string, params?: readonly SqlValue[]): Awaitable<number>;
  /**
   * Runs a statement whose row count the operation does not read. The session may send it later,
   * together with the next statements of the transaction (PostgreSQL: in the same round trip); if
   * it fails — or changes other than `expectChanged` rows, when given — the transaction fails, at
   * the latest at COMMIT.
   */
  write(sql: string, params?: readonly SqlValue[], expectChanged?: number): Awaitable<void>;
}

/** A store operation: a generator of queries whose return value is the operation's answer. */
export type Step<T> = Generator<Awaitable<unknown>, T, unknown>;

/** `const row = yield* io(s.get(...))`: hands one query to the driver and gets its answer back, typed. */
export function* io<T>(query: Awaitable<T>): Generator<Awaitable<T>, T, unknown> {
  return (yield query) as T;
}

const isPromise = (v: unknown): v is Promise<unknown> =>
  typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function';

/** Drives an operation whose session answers synchronously (SQLite). */
export function runSync<T>(step: Step<T>): T {
  let r = step.next();
  while (!r.done) {
    if (isPromise(r.value)) throw new Error('an asynchronous query reached a synchronous store session');
    r = step.next(r.value);
  }
  return r.value;
}

/** Drives an operation whose session answers with promises (PostgreSQL). */
export async function runAsync<T>(step: Step<T>): Promise<T> {
  let r = step.next();
  while (!r.done) r = step.next(await r.value);
  return r.value;
}

/**
 * Starts an operation now and hands back the rest of it: its first query goes to the session at
 * once, and `yield*` of the handle runs it on from that query's answer. On PostgreSQL the first
 * queries of operations started together then leave together (one round trip on one connection);
 * on SQLite the query simply runs now. A handle never run on (its answer no longer needed) has
 * its first query's failure ignored.
 */
export function started<T>(step: Step<T>): Step<T> {
  const first = step.next();
  if (!first.done && isPromise(first.value)) first.value.catch(() => undefined);
  return runOnFrom(step, first);
}

/**
 * The rest of a started operation. A module-level generator, not one made per call: every
 * generator function made anew gets its own prototype object, so the generators of each call have
 * a map of their own and every property read on them misses V8's caches (about 3.5 µs a call).
 */
function* runOnFrom<T>(step: Step<T>, first: IteratorResult<Awaitable<unknown>, T>): Step<T> {
  let r = first;
  while (!r.done) r = step.next(yield r.value);
  return r.value;
}
