/**
 * The connection pool of one Hub instance. BIGINT (counts, epoch milliseconds, seqs) is read as a
 * JavaScript number: every such value the Hub stores is far below 2^53. Errors of idle clients are
 * reported, never thrown (a restarted server must not crash the Hub). A checked-out client has no
 * pool listener (pg-pool removes it while the client is lent), and pg emits 'error' on a client
 * whose connection the server ends even when its query is also rejected: every client therefore
 * carries a listener of its own for its whole life, so such an error is reported, not uncaught.
 */
import pg, { type ClientConfig, type Pool } from 'pg';
import { withKnownRows } from './known-rows.js';

const INT8 = 20;
/** One parser for every BIGINT column (pg asks for a column's parser with each result's fields). */
const int8AsNumber = (v: string): number => Number(v);

export interface PoolOptions {
  url: string;
  /** Connections of this instance (default 10). */
  max?: number;
  onIdleError(err: unknown): void;
  /** Bounds of the two waits (below); tests shorten them. */
  connectTimeoutMs?: number;
  queueWaitMs?: number;
}

/** How long connecting to the server may take before the store counts as unavailable. */
const CONNECT_TIMEOUT_MS = 5_000;
/**
 * How long a transaction may wait for one of the instance's connections. pg-pool uses one
 * `connectionTimeoutMillis` for both waits; a busy Hub whose transactions queue for a few seconds
 * (all connections waiting on one task's row lock) is loaded, not cut off from its store, so the
 * queue gets the longer bound and each new connection keeps its own short one (ConnectingClient
 * in createPool).
 */
const QUEUE_WAIT_MS = 30_000;

export function clientConfig(url: string): ClientConfig {
  return {
    connectionString: url,
    application_name: 'bailing-hub',
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    keepAlive: true,
    types: {
      getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
        oid === INT8 && format !== 'binary' ? int8AsNumber : pg.types.getTypeParser(oid, format)) as never,
    },
  };
}

export function createPool(opts: PoolOptions): Pool {
  const connectTimeoutMs = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  class ConnectingClient extends pg.Client {
    constructor(config?: ClientConfig) {
      // pipelined: a transaction's statements that wait for no answer (BEGIN, a key lock, held-back
      // writes, COMMIT) go out right behind one another (session.ts)
      super({ ...config, connectionTimeoutMillis: connectTimeoutMs, pipeline: true });
      // a named statement's known columns are not described again (known-rows.ts)
      const query = withKnownRows(this.query.bind(this) as (...args: unknown[]) => unknown);
      this.query = ((config: unknown, values?: unknown, callback?: unknown) => {
        corkBurst(this);
        return query(config, values, callback);
      }) as never;
    }
  }
  const pool = new pg.Pool({
    ...clientConfig(opts.url),
    Client: ConnectingClient,
    connectionTimeoutMillis: opts.queueWaitMs ?? QUEUE_WAIT_MS,
    max: opts.max ?? 10,
    idleTimeoutMillis: 30_000,
  });
  pool.on('error', (err) => opts.onIdleError(err));
  pool.on('connect', (client) => {
    client.on('error', () => undefined); // reported through the rejected query or the pool's 'error'
  });
  return pool;
}

const corked = new WeakSet<object>();

/**
 * Holds back the socket writes of the queries a client is given in one turn of the event loop
 * (with the promise callbacks it runs) and sends them in one write at its end. A pipelined
 * transaction hands pg several statements at once (BEGIN, locks, reads, held-back writes, COMMIT),
 * and each would otherwise be a write system call of its own — on this kind of machine the
 * largest single cost of a statement to the client.
 */
function corkBurst(client: pg.Client): void {
  const stream = (
    client as unknown as {
      connection?: { stream?: NodeJS.WritableStream & { cork?(): void; uncork?(): void } };
    }
  ).connection?.stream;
  if (!stream?.cork || !stream.uncork || corked.has(client)) return;
  corked.add(client);
  stream.cork();
  // after the promise callbacks queued now have run: the statements they send join this write
  process.nextTick(() => {
    corked.delete(client);
    stream.uncork!();
  });
}

/** The URL without its password, for logs and the durability line. */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'postgres://(unparseable url)';
  }
}
