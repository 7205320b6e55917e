/**
 * The keep-alive connections the Hub sends business requests on. A fresh TCP (and TLS) connection
 * per call costs a handshake on every call; a pooled one is reused while it is idle for less than
 * IDLE_MS (or less than the server announces in `Keep-Alive: timeout=N`, minus a second — Node's
 * agent applies that hint), so the Hub closes an idle connection before the business system does.
 *
 * What a pool may never do is turn a lost answer into a "never sent": a request written on a
 * reused connection has left, so anything that goes wrong after it is `no_response` (http.ts
 * marks a reused socket writable at once). The one cost is a rare honest `unknown` when a server
 * closes an idle connection at the very moment the Hub reuses it; it never causes a second send.
 *
 * One pool per destination policy (loopback-only or not): a connection made under one address
 * check is never reused under another.
 */
import http from 'node:http';
import https from 'node:https';

/** Longest a connection stays idle in the pool (well under common server keep-alive timeouts of 5 s and more). */
export const IDLE_MS = 1_000;

const options = { keepAlive: true, timeout: IDLE_MS, scheduling: 'lifo' as const, maxFreeSockets: 64 };

const pools = {
  http: { loopback: new http.Agent(options), any: new http.Agent(options) },
  https: { loopback: new https.Agent(options), any: new https.Agent(options) },
};

export function agentFor(isHttps: boolean, loopbackOnly: boolean): http.Agent {
  const byPolicy = isHttps ? pools.https : pools.http;
  return loopbackOnly ? byPolicy.loopback : byPolicy.any;
}
