/**
 * A Node client for the browser host's WebSocket (the same frames the renderer sends), for the
 * chaos harness and for scenario checks that read the host's state directly. Sends the Origin the
 * host expects and the launch's session cookie (got by spending the link's one-time code).
 */
import WebSocket from 'ws';

export interface HostEvent {
  event: string;
  payload: unknown;
}

export interface HostClient {
  call<T = unknown>(name: string, input?: unknown, timeoutMs?: number): Promise<T>;
  events(): HostEvent[];
  close(): void;
}

export class HostCallError extends Error {
  constructor(
    readonly call: string,
    readonly code: string,
    message: string,
  ) {
    super(`${call}: ${code}: ${message}`);
    this.name = 'HostCallError';
  }
}

/**
 * Spends the launch link's one-time code for the session cookie, as the page does (so a page can no
 * longer open that link: use this only where no page opens it, e.g. the chaos harness).
 */
export async function exchangeLaunchCode(host: { origin: string; token: string }): Promise<string> {
  const r = await fetch(`${host.origin}/session`, {
    method: 'POST',
    headers: { origin: host.origin, 'content-type': 'application/json' },
    body: JSON.stringify({ code: host.token }),
  });
  const cookie = r.headers.get('set-cookie')?.split(';')[0];
  if (r.status !== 200 || !cookie) throw new Error(`the host refused the launch code: HTTP ${r.status}`);
  return cookie;
}

export async function connectHost(
  host: { origin: string; token: string },
  cookie?: string,
): Promise<HostClient> {
  const session = cookie ?? (await exchangeLaunchCode(host));
  const wsUrl = `${host.origin.replace(/^http/, 'ws')}/ws`;
  const ws = new WebSocket(wsUrl, { origin: host.origin, headers: { cookie: session } });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  let next = 1;
  const pending = new Map<
    number,
    { resolve: (v: unknown) => void; reject: (e: Error) => void; name: string }
  >();
  const events: HostEvent[] = [];
  ws.on('message', (data) => {
    let frame: {
      id?: unknown;
      result?: { ok: boolean; value?: unknown; error?: { code: string; message: string } };
      event?: string;
      payload?: unknown;
    };
    try {
      frame = JSON.parse(String(data)) as typeof frame;
    } catch {
      return;
    }
    if (typeof frame.event === 'string') {
      events.push({ event: frame.event, payload: frame.payload });
      return;
    }
    if (typeof frame.id !== 'number') return;
    const p = pending.get(frame.id);
    if (!p) return;
    pending.delete(frame.id);
    const r = frame.result;
    if (r?.ok) p.resolve(r.value);
    else p.reject(new HostCallError(p.name, r?.error?.code ?? 'unknown', r?.error?.message ?? 'no result'));
  });
  ws.on('close', () => {
    for (const [, p] of pending)
      p.reject(new HostCallError(p.name, 'host_gone', 'the host connection closed'));
    pending.clear();
  });
  return {
    call<T>(name: string, input: unknown = {}, timeoutMs = 30_000) {
      const id = next++;
      return new Promise<T>((resolve, reject) => {
        const timer = setTimeout(() => {
          pending.delete(id);
          reject(new HostCallError(name, 'timeout', `no answer within ${timeoutMs} ms`));
        }, timeoutMs);
        pending.set(id, {
          name,
          resolve: (v) => (clearTimeout(timer), resolve(v as T)),
          reject: (e) => (clearTimeout(timer), reject(e)),
        });
        ws.send(JSON.stringify({ id, call: name, input }));
      });
    },
    events: () => [...events],
    close: () => ws.close(),
  };
}

/** Connects to a freshly started host and waits until it reports its Hub connection as connected. */
export async function connectReadyHost(
  host: { origin: string; token: string },
  timeoutMs = 30_000,
): Promise<HostClient> {
  const client = await connectHost(host);
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const info = await client.call<{ hub: { state: string } }>('getAppInfo');
    if (info.hub.state === 'connected') return client;
    if (Date.now() > deadline) {
      client.close();
      throw new Error(`the host did not connect to its Hub within ${timeoutMs} ms (state ${info.hub.state})`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}
