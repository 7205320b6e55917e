/**
 * Named statements whose rows a connection already knows. pg describes the result of every
 * execution (a Describe message; the server answers each with the columns' names and types) and
 * then rebuilds the result's column list, one parser per column and an empty row of every column's
 * name — for each result, even one with no rows: 4.6 % of a PostgreSQL Hub's samples, most of it
 * for the 32 columns of `invocations`. A named prepared statement's columns cannot change on its
 * connection: a change of the tables under it that would change them makes the server refuse the
 * statement ("cached plan must not change result type"), never answer other columns. So after a
 * statement's first answer with rows described on a connection, its later executions there send no
 * Describe, and their results take the column list, parsers and empty row built the first time.
 *
 * Kept per connection (a pg Client is one connection for its life), only for statements that
 * answered a row description (a statement without rows, an INSERT, is described each time as before).
 * Built on pg's Query (8.x), whose `prepare` sends Parse (the first time), Bind, Describe, Execute
 * and Sync: here it is given the connection with a `describe` that sends nothing once the columns
 * are known.
 */
import pg, { type QueryConfig } from 'pg';

/** A statement's result columns as pg's Result builds them from a row description. */
interface KnownRows {
  fields: unknown[];
  parsers: unknown[] | undefined;
  emptyRow: unknown;
}

/** What pg's Query and Result keep that this reads and sets (pg/lib/query.js, result.js). */
interface QueryInternals {
  name?: string;
  rows?: number;
  _accumulateRows?: unknown;
  _result: { fields: unknown[]; _parsers: unknown[] | undefined; _prebuiltEmptyResultObject: unknown };
  hasBeenParsed(connection: object): boolean;
  prepare(connection: object): void;
  handleRowDescription(msg: unknown): void;
}

type Callback = (err: Error | undefined, result: pg.QueryResult) => void;

const noDescribe = new WeakMap<object, object>();
const SUPPORTED = knownRowsSupported(pg.Query as never);

/** The connection as pg's Query sees it, but sending no Describe (the rest is the connection's own). */
function withoutDescribe(connection: object): object {
  let c = noDescribe.get(connection);
  if (!c) {
    c = Object.create(connection, { describe: { value: () => undefined } }) as object;
    noDescribe.set(connection, c);
  }
  return c;
}

/** Makes the query (a named statement's config) for a connection whose known columns are `known`. */
function knownRowsQuery(known: Map<string, KnownRows>, config: QueryConfig, callback: Callback): pg.Query {
  const query = new pg.Query(config, callback as never);
  const q = query as unknown as QueryInternals;
  const prepare = q.prepare.bind(q);
  const describeRows = q.handleRowDescription.bind(q);
  q.prepare = (connection) => {
    const rows = q.name === undefined ? undefined : known.get(q.name);
    if (!rows || q.rows !== undefined || !q.hasBeenParsed(connection)) return prepare(connection);
    const result = q._result;
    result.fields = rows.fields;
    result._parsers = rows.parsers;
    result._prebuiltEmptyResultObject = rows.emptyRow;
    q._accumulateRows = true; // as pg's handleRowDescription sets it for a query with a callback
    prepare(withoutDescribe(connection));
  };
  q.handleRowDescription = (msg) => {
    describeRows(msg);
    if (q.name === undefined) return;
    const result = q._result;
    known.set(q.name, {
      fields: result.fields,
      parsers: result._parsers,
      emptyRow: result._prebuiltEmptyResultObject,
    });
  };
  return query;
}

/**
 * Whether `Query` keeps what this reads and sets, as pg 8.23 does. Any other shape (a pg whose
 * internals moved) leaves every statement to pg as it is: described each time, slower, still right.
 */
export function knownRowsSupported(Query: new (config: QueryConfig) => object): boolean {
  try {
    const q = new Query({ name: 'probe', text: 'SELECT 1' }) as Partial<QueryInternals>;
    const r = q._result as Partial<QueryInternals['_result']> | undefined;
    return (
      typeof q.prepare === 'function' &&
      typeof q.hasBeenParsed === 'function' &&
      typeof q.handleRowDescription === 'function' &&
      r !== undefined &&
      '_parsers' in r &&
      '_prebuiltEmptyResultObject' in r &&
      Array.isArray(r.fields)
    );
  } catch {
    return false;
  }
}

/**
 * Wraps a client's `query`: a named statement given as a config object (how session.ts sends every
 * statement) runs as a query that skips describing known columns; anything else goes to pg as it is.
 */
export function withKnownRows(
  query: (...args: unknown[]) => unknown,
  supported = SUPPORTED,
): (config: unknown, values?: unknown, callback?: unknown) => unknown {
  if (!supported) return query;
  const known = new Map<string, KnownRows>();
  return (config, values, callback) => {
    const named =
      typeof config === 'object' &&
      config !== null &&
      typeof (config as { name?: unknown }).name === 'string' &&
      typeof (config as { submit?: unknown }).submit !== 'function';
    if (!named) return query(config, values, callback);
    const cb = (typeof values === 'function' ? values : callback) as Callback | undefined;
    const withValues = Array.isArray(values)
      ? { ...(config as QueryConfig), values }
      : (config as QueryConfig);
    if (cb) return query(knownRowsQuery(known, withValues, cb));
    return new Promise((resolve, reject) => {
      query(knownRowsQuery(known, withValues, (err, res) => (err ? reject(err) : resolve(res))));
    });
  };
}
