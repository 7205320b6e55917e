/**
 * A real TCP forwarder in front of the Hub that behaves like a layer-4 load balancer: every client
 * connection gets its own upstream connection, and when the upstream goes away (the Hub stopped or
 * was killed) the client side is LEFT OPEN — the next bytes the client sends on it are answered
 * with a reset (RST), since the balancer has no backend for that connection any more. A test can
 * also make it drop a request before it reaches the Hub, or drop the connection as the Hub's
 * answer comes back (the Hub did the work, the client never hears about it).
 */
import net from 'node:net';

export type ConnProxyMode =
  | 'forward' // pass bytes both ways
  | 'reset-before-upstream' // reset the client connection when its request arrives, forward nothing
  | 'reset-on-response'; // forward the request, reset the client connection when the answer starts

export interface ConnProxy {
  url: string;
  setMode(mode: ConnProxyMode): void;
  /** Client connections accepted so far. */
  connections(): number;
  /** Client connections this proxy reset. */
  resets(): number;
  /** Every byte clients sent through the proxy (request lines and headers included). */
  sent(): string;
  close(): Promise<void>;
}

export async function startConnProxy(targetPort: () => number): Promise<ConnProxy> {
  let mode: ConnProxyMode = 'forward';
  let connections = 0;
  let resets = 0;
  let sentText = '';
  const sockets = new Set<net.Socket>();
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => undefined);
  };
  const server = net.createServer((client) => {
    connections += 1;
    track(client);
    const upstream = net.connect(targetPort(), '127.0.0.1');
    track(upstream);
    let upstreamGone = false;
    const reset = () => {
      if (client.destroyed) return;
      resets += 1;
      client.resetAndDestroy();
      upstream.destroy();
    };
    // The upstream went away: the client connection stays open, as a balancer's does.
    upstream.on('close', () => (upstreamGone = true));
    upstream.on('data', (chunk: Buffer) => {
      if (mode === 'reset-on-response') reset();
      else client.write(chunk);
    });
    client.on('data', (chunk: Buffer) => {
      sentText += chunk.toString('latin1');
      if (mode === 'reset-before-upstream' || upstreamGone) reset();
      else upstream.write(chunk);
    });
    client.on('close', () => upstream.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    setMode: (m) => (mode = m),
    connections: () => connections,
    resets: () => resets,
    sent: () => sentText,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** How many requests with this method and path the proxy carried from clients. */
export function countRequests(sent: string, method: string, path: string): number {
  return sent.split(`${method} ${path} HTTP/1.1\r\n`).length - 1;
}
