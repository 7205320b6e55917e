/**
 * The browser transport: the same BailingApi over the browser host's WebSocket. The per-launch
 * token comes from the URL fragment (kept in sessionStorage for reloads of this tab). Calls made
 * while the socket is down fail at once with `host_unavailable`; the socket reconnects by itself.
 */
import type { BailingApi, EventFunctions } from '../../../src-shared/ipc/api.js';
import { CALL_NAMES, EVENT_NAMES, type CallName, type CallResult, type EventName } from '../../../src-shared/ipc/contract.js';

type Pending = { resolve: (r: CallResult<CallName>) => void };

export interface WsTransport {
  api: BailingApi;
  onStatus(listener: (s: 'open' | 'closed') => void): () => void;
  close(): void;
}

export interface WsTransportOptions {
  url: string; // ws://127.0.0.1:PORT/ws?token=...
  WebSocketImpl?: typeof WebSocket;
  reconnectDelayMs?: number;
}

export function createWsTransport(opts: WsTransportOptions): WsTransport {
  const WS = opts.WebSocketImpl ?? WebSocket;
  const pending = new Map<number, Pending>();
  const listeners = new Map<EventName, Set<(p: unknown) => void>>();
  const statusListeners = new Set<(s: 'open' | 'closed') => void>();
  let nextId = 1;
  let socket: WebSocket | null = null;
  let open = false;
  let closed = false;
  let waiters: Array<() => void> = [];

  const setOpen = (v: boolean) => {
    open = v;
    for (const l of [...statusListeners]) l(v ? 'open' : 'closed');
    if (v) {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    }
  };

  const connect = () => {
    if (closed) return;
    const ws = new WS(opts.url);
    socket = ws;
    ws.onopen = () => setOpen(true);
    ws.onmessage = (m: MessageEvent) => {
      let frame: { id?: unknown; result?: CallResult<CallName>; event?: unknown; payload?: unknown };
      try {
        frame = JSON.parse(String(m.data)) as typeof frame;
      } catch {
        return;
      }
      if (typeof frame.event === 'string') {
        const set = listeners.get(frame.event as EventName);
        if (set) for (const l of [...set]) l(frame.payload);
        return;
      }
      if (typeof frame.id === 'number' && frame.result) {
        const p = pending.get(frame.id);
        if (p) {
          pending.delete(frame.id);
          p.resolve(frame.result);
        }
      }
    };
    ws.onclose = () => {
      if (socket === ws) socket = null;
      for (const [id, p] of pending) {
        pending.delete(id);
        p.resolve({ ok: false, error: { error: 'host_unavailable', message: 'The app host connection closed.' } });
      }
      if (open) setOpen(false);
      if (!closed) setTimeout(connect, opts.reconnectDelayMs ?? 1000);
    };
  };
  connect();

  const invoke = async <K extends CallName>(name: K, input: unknown): Promise<CallResult<K>> => {
    if (!open) {
      // The first calls of a page load wait briefly for the socket to open.
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, 3000);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    const ws = socket;
    if (!ws || !open) return { ok: false, error: { error: 'host_unavailable', message: 'The app host is not connected.' } };
    const id = nextId++;
    return new Promise<CallResult<K>>((resolve) => {
      pending.set(id, { resolve: resolve as (r: CallResult<CallName>) => void });
      ws.send(JSON.stringify({ id, call: name, input: input ?? {} }));
    });
  };

  const calls = Object.fromEntries(CALL_NAMES.map((n) => [n, (input: unknown) => invoke(n, input)]));
  const subs = Object.fromEntries(
    EVENT_NAMES.map((n) => [
      `on${n.charAt(0).toUpperCase()}${n.slice(1)}`,
      (listener: (p: unknown) => void) => {
        let set = listeners.get(n);
        if (!set) {
          set = new Set();
          listeners.set(n, set);
        }
        set.add(listener);
        return () => set.delete(listener);
      },
    ]),
  ) as unknown as EventFunctions;

  return {
    api: { ...(calls as unknown as Omit<BailingApi, keyof EventFunctions>), ...subs } as BailingApi,
    onStatus(listener) {
      statusListeners.add(listener);
      return () => statusListeners.delete(listener);
    },
    close() {
      closed = true;
      socket?.close();
    },
  };
}
