/**
 * The browser transport: the same BailingApi over the browser host's WebSocket. The upgrade carries
 * this launch's session cookie, which the page got by exchanging its link's one-time code
 * (./index.ts); `opening` is that exchange: a link already used is `link_used` (nothing to try).
 *
 * The link is `open` only once the host's hello frame arrives. When the socket drops, calls fail at
 * once with `host_unavailable` and the socket reconnects by itself with a growing delay
 * (`reconnecting`, then `unreachable` after a few failed attempts; it keeps trying). When the host
 * closes the socket with WS_CLOSE_LAUNCH_TOKEN_REJECTED, the host is up but this page's token is
 * not this launch's (a tab from an earlier launch): the link is `rejected`, calls fail at once with
 * `launch_token_rejected`, and it does not retry — the same token will never be accepted again.
 */
import type { AppErrorData } from '../../../src-shared/errors.js';
import type { HostLinkState } from '../../../src-shared/states.js';
import type { BailingApi, EventFunctions } from '../../../src-shared/ipc/api.js';
import {
  CALL_NAMES,
  EVENT_NAMES,
  type CallName,
  type CallResult,
  type EventName,
} from '../../../src-shared/ipc/contract.js';

/** Same numbers as src-main/browser-host/protocol.ts (a test checks they agree). */
export const WS_CLOSE_LAUNCH_TOKEN_REJECTED = 4401;
export const WS_CLOSE_SESSION_MISSING = 4403;
export const HELLO = 'bailing.browser-host.v1';

/**
 * open: connected. reconnecting: lost, retrying. unreachable: still no answer after several
 * attempts (still retrying). rejected: the host answered and refused this page's launch token
 * (no retry). no_token: the page was opened without an access link (nothing to try). link_used:
 * the access link was already used, by another tab or window (nothing to try).
 */
export type LinkState = Exclude<HostLinkState, 'connecting'>;

type Pending = { resolve: (r: CallResult<CallName>) => void };

export interface WsTransport {
  api: BailingApi;
  onStatus(listener: (s: LinkState) => void): () => void;
  state(): HostLinkState;
  close(): void;
}

export interface WsTransportOptions {
  url: string; // ws://127.0.0.1:PORT/ws (the session cookie goes with the upgrade)
  /** The link's code exchange before the first connection: `link_used` connects nothing. */
  opening?: Promise<'connect' | 'link_used'>;
  WebSocketImpl?: typeof WebSocket;
  /** First reconnect delay; it doubles per failed attempt up to maxReconnectDelayMs. */
  reconnectDelayMs?: number;
  maxReconnectDelayMs?: number;
  /** Failed attempts in a row after which the link is reported `unreachable` (default 5). */
  unreachableAfter?: number;
  /** How long the first calls of a page wait for the link to open (default 3000 ms). */
  openWaitMs?: number;
}

const REJECTED_ERROR: AppErrorData = {
  code: 'launch_token_rejected',
  message: 'The app host refused this window: its access link is from an earlier launch.',
};
const MISSING_ERROR: AppErrorData = {
  code: 'launch_token_missing',
  message: 'This page was opened without its access link.',
};
const LINK_USED_ERROR: AppErrorData = {
  code: 'launch_link_used',
  message: 'This access link was already used; use the window already open, or restart the app.',
};

export function createWsTransport(opts: WsTransportOptions): WsTransport {
  const WS = opts.WebSocketImpl ?? WebSocket;
  const baseDelay = opts.reconnectDelayMs ?? 500;
  const maxDelay = Math.max(baseDelay, opts.maxReconnectDelayMs ?? 8000);
  const unreachableAfter = opts.unreachableAfter ?? 5;
  const pending = new Map<number, Pending>();
  const listeners = new Map<EventName, Set<(p: unknown) => void>>();
  const statusListeners = new Set<(s: LinkState) => void>();
  let nextId = 1;
  let socket: WebSocket | null = null;
  let state: HostLinkState = 'connecting';
  let failures = 0;
  let closed = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let waiters: Array<() => void> = [];

  const setState = (next: LinkState) => {
    if (state === next) return;
    state = next;
    for (const l of [...statusListeners]) l(next);
    if (next !== 'reconnecting' && next !== 'unreachable') {
      const w = waiters;
      waiters = [];
      for (const f of w) f();
    }
  };

  const failPending = (error: AppErrorData) => {
    for (const [id, p] of pending) {
      pending.delete(id);
      p.resolve({ ok: false, error });
    }
  };

  const connect = () => {
    timer = null;
    if (closed) return;
    const ws = new WS(opts.url);
    socket = ws;
    let greeted = false;
    // Without a handler Node's `ws` throws on a failed handshake; the close handler decides.
    ws.onerror = () => {};
    ws.onmessage = (m: MessageEvent) => {
      let frame: {
        id?: unknown;
        result?: CallResult<CallName>;
        event?: unknown;
        payload?: unknown;
        hello?: unknown;
      };
      try {
        frame = JSON.parse(String(m.data)) as typeof frame;
      } catch {
        return;
      }
      if (!greeted) {
        if (frame.hello !== HELLO) return;
        greeted = true;
        failures = 0;
        setState('open');
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
    ws.onclose = (ev: CloseEvent) => {
      if (socket === ws) socket = null;
      if (ev.code === WS_CLOSE_LAUNCH_TOKEN_REJECTED || ev.code === WS_CLOSE_SESSION_MISSING) {
        // The host is up and said no: retrying without a new link can never succeed.
        closed = true;
        const missing = ev.code === WS_CLOSE_SESSION_MISSING;
        setState(missing ? 'no_token' : 'rejected');
        failPending(missing ? MISSING_ERROR : REJECTED_ERROR);
        return;
      }
      failPending({ code: 'host_unavailable', message: 'The app host connection closed.' });
      if (closed) return;
      failures += 1;
      setState(failures >= unreachableAfter ? 'unreachable' : 'reconnecting');
      const delay = Math.min(maxDelay, baseDelay * 2 ** Math.min(failures - 1, 16));
      timer = setTimeout(connect, delay);
    };
  };

  const unavailable = (): { ok: false; error: AppErrorData } =>
    state === 'rejected'
      ? { ok: false, error: REJECTED_ERROR }
      : state === 'no_token'
        ? { ok: false, error: MISSING_ERROR }
        : state === 'link_used'
          ? { ok: false, error: LINK_USED_ERROR }
          : { ok: false, error: { code: 'host_unavailable', message: 'The app host is not connected.' } };

  const invoke = async <K extends CallName>(name: K, input: unknown): Promise<CallResult<K>> => {
    if (state === 'connecting' || state === 'reconnecting' || state === 'unreachable') {
      // The first calls of a page (and calls during a short drop) wait briefly for the link.
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, opts.openWaitMs ?? 3000);
        waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
    const ws = socket;
    if (!ws || state !== 'open') return unavailable() as CallResult<K>;
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

  if (opts.opening)
    void opts.opening.then(
      (verdict) => {
        if (verdict === 'link_used') {
          // The link's code was spent by another tab: nothing this page could present.
          closed = true;
          setState('link_used');
          failPending(LINK_USED_ERROR);
        } else connect();
      },
      () => connect(),
    );
  else connect();

  return {
    api: { ...(calls as unknown as Omit<BailingApi, keyof EventFunctions>), ...subs } as BailingApi,
    onStatus(listener) {
      statusListeners.add(listener);
      // A state reached before this listener came (e.g. no token) is reported at once.
      if (state !== 'connecting') listener(state);
      return () => statusListeners.delete(listener);
    },
    state: () => state,
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      socket?.close();
    },
  };
}
