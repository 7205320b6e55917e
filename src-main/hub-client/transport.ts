/**
 * How the Hub client's requests reach the Hub.
 *
 * - Reads (GET, including the SSE stream, and the tool search, a POST that changes nothing) use
 *   the process-wide keep-alive pool of the built-in fetch. A pooled connection the peer has already closed is harmless for a read: http.ts sends
 *   the GET once more.
 * - Writes (POST) each go out on a NEW TCP connection that carries that one request and is closed
 *   after its answer: an undici Agent with `pipelining: 0` sends `connection: close` and never hands
 *   a connection to a second request. A write therefore never rides a pooled connection that a
 *   restarted Hub, or a proxy or load balancer in front of it, has already given up — such a send
 *   fails with a socket error after which nobody can tell whether the Hub got the request, and a
 *   write is never re-sent. A write whose own fresh connection fails still fails (never re-sent).
 *
 * The Agent comes from the `undici` package, major 6 = the undici inside Node 20/22's built-in
 * fetch, whose `dispatcher` option it is passed to. It keeps no idle connection, so it holds
 * nothing open between writes and one Agent serves every client in the process.
 */
import { Agent } from 'undici';

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

/** Reads: the built-in fetch with its default keep-alive pool. */
export const pooledFetch: FetchLike = (input, init) => fetch(input, init);

let writeAgent: Agent | null = null;

/** Writes: the built-in fetch on a connection opened for this request alone. */
export const freshConnectionFetch: FetchLike = (input, init) => {
  writeAgent ??= new Agent({ pipelining: 0 });
  // `dispatcher` is undici's extension of RequestInit (Node's fetch honours it; DOM typings lack it).
  return fetch(input, { ...init, dispatcher: writeAgent } as RequestInit);
};
