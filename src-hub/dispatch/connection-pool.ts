/**
 * The keep-alive connections the Hub sends business requests on: undici Clients (one connection
 * each), pooled per origin and destination policy (loopback-only or not), so a connection made
 * under one address check is never reused under another. A fresh TCP (and TLS) connection per
 * call costs a handshake on every call; a pooled one is reused while it is idle for less than
 * IDLE_MS (or less than the server announces in `Keep-Alive: timeout=N`, minus a second), so the
 * Hub closes an idle connection before the business system does.
 *
 * Every connection is made through `guardedLookup` (destination.ts): each address a name resolves
 * to is checked right before connecting. undici's own rules that matter here: one request at a
 * time per connection (pipelining 1), no redirect followed, no retry; before it writes a request on
 * an idle kept-alive connection it lets pending FIN/RST on that socket be read first, so a
 * connection the server already closed is not used (the request goes on a new one, never written
 * twice: http.ts counts a request as sent from undici's `onConnect`, right before its first byte).
 *
 * What a pool may never do is turn a lost answer into a "never sent": anything that goes wrong after
 * a request was handed to a connection to be written is `no_response` (http.ts). The one cost is a
 * rare honest `unknown` when a server closes an idle connection at the very moment the Hub writes
 * on it; it never causes a second send.
 */
import type { Socket } from 'node:net';
import { buildConnector, Client } from 'undici';
import { guardedLookup } from './destination.js';

/** Longest a connection stays idle in the pool (well under common server keep-alive timeouts of 5 s and more). */
export const IDLE_MS = 1_000;

/** Set on a connect error raised after TCP connected, during a TLS handshake (http.ts: `tls_failed`). */
export const TLS_HANDSHAKE_FAILED = Symbol('tls handshake failed');

/**
 * undici's connector with the destination check on every address, marking the errors of a TLS
 * handshake that failed after its TCP connection was made.
 */
function guardedConnector(loopbackOnly: boolean): buildConnector.connector {
  // timeout 0: no connect timeout of undici's own; each exchange's deadline cuts its connect (http.ts)
  const base = buildConnector({ lookup: guardedLookup({ loopbackOnly }), timeout: 0 }) as (
    ...args: Parameters<buildConnector.connector>
  ) => Socket;
  return (options, callback) => {
    let tcpConnected = false;
    const socket = base(options, (err, sock) => {
      if (err) {
        if (tcpConnected && options.protocol === 'https:')
          (err as Error & { [TLS_HANDSHAKE_FAILED]?: true })[TLS_HANDSHAKE_FAILED] = true;
        callback(err, null);
      } else callback(null, sock);
    });
    socket.once('connect', () => {
      tcpConnected = true;
    });
  };
}

/** One kept-alive connection (an undici Client) and how many of our exchanges it is carrying. */
export interface PooledConnection {
  readonly key: string;
  readonly client: Client;
  /** Exchanges handed to it that undici has not yet finished with (answered, failed or aborted). */
  active: number;
}

const pools = new Map<string, PooledConnection[]>();
const connectors = { loopback: guardedConnector(true), any: guardedConnector(false) };

function open(key: string, origin: string, loopbackOnly: boolean): PooledConnection {
  const conn: PooledConnection = {
    key,
    client: new Client(origin, {
      connect: loopbackOnly ? connectors.loopback : connectors.any,
      pipelining: 1,
      maxRedirections: 0,
      keepAliveTimeout: IDLE_MS,
      keepAliveMaxTimeout: IDLE_MS,
      keepAliveTimeoutThreshold: 1_000,
      // http.ts holds each exchange to its own deadline
      headersTimeout: 0,
      bodyTimeout: 0,
    }),
    active: 0,
  };
  // a connection closed while nothing is on it (idle past IDLE_MS, or closed by the server) leaves
  // the pool, so the pool holds only connections that are up or in use
  conn.client.on('disconnect', () => {
    if (conn.active > 0) return;
    leave(conn);
    void conn.client.close().catch(() => undefined);
  });
  return conn;
}

function leave(conn: PooledConnection): void {
  const list = pools.get(conn.key);
  const at = list?.indexOf(conn) ?? -1;
  if (list && at >= 0) list.splice(at, 1);
  if (list?.length === 0) pools.delete(conn.key);
}

/**
 * Drops a connection its one exchange gave up on before handing it the request (deadline, abort):
 * a connect or TLS handshake still under way is cut, as nothing will ever be written on it.
 */
export function discard(conn: PooledConnection): void {
  leave(conn);
  void conn.client.destroy().catch(() => undefined);
}

/**
 * A connection to `origin` with nothing on it (the first such, so the busiest connections stay
 * warm and the others go idle), or a new one; the caller counts itself in `active` and out again
 * once undici is done with its request. (undici's own Pool picks a connection by whether it has
 * announced being free, which it does a turn of the event loop after an answer: a caller sending
 * its next request at once would open a second connection.)
 */
export function connectionFor(origin: string, loopbackOnly: boolean): PooledConnection {
  const key = `${loopbackOnly ? 'l' : 'a'}${origin}`;
  let list = pools.get(key);
  if (!list) {
    list = [];
    pools.set(key, list);
  }
  for (const conn of list) if (conn.active === 0) return conn;
  const conn = open(key, origin, loopbackOnly);
  list.push(conn);
  return conn;
}
