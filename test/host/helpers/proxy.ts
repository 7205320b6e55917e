/** A real TCP forwarder in front of the Hub that a test can take down and bring back (an offline Hub). */
import net from 'node:net';

export interface Proxy {
  url: string;
  setDown(down: boolean): void;
  /** Everything clients sent through the proxy (request lines and headers included). */
  sent(): string;
  close(): Promise<void>;
}

export async function startProxy(targetPort: number): Promise<Proxy> {
  let down = false;
  let sentText = '';
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(targetPort, '127.0.0.1');
    sockets.add(client);
    sockets.add(upstream);
    client.on('data', (chunk: Buffer) => {
      sentText += chunk.toString('latin1');
    });
    client.pipe(upstream);
    upstream.pipe(client);
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end);
    upstream.on('error', end);
    client.on('close', end);
    upstream.on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    sent: () => sentText,
    setDown(d) {
      down = d;
      if (d) for (const s of sockets) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
