/**
 * A transport that tells whether one outgoing `tools/call` was handed to the wire: it forwards
 * everything to the SDK's own transport and records the fate of each `send`. Writes no protocol:
 * the SDK's Client and transport do all of that. A call whose message was never handed over, or
 * whose send failed before a connection existed, provably never left (docs/mcp.md#outcomes).
 */
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport, TransportSendOptions } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage, MessageExtraInfo } from '@modelcontextprotocol/sdk/types.js';

/** What became of handing one message to the transport. */
export type SendFate = { handed: false } | { handed: true; error: unknown | null };

/** Errors raised before a connection existed: nothing of the message can have been written. */
const BEFORE_CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_NONAME',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EADDRNOTAVAIL',
]);

/** The transport was closed (a stdio server's process gone) before the message was handed to it. */
export class TransportNotConnectedError extends Error {
  readonly code = 'not_connected';
  constructor() {
    super('the MCP connection is closed; the message was not written');
  }
}

/** True when a send error proves the message never left (no connection, no process to write to). */
export function neverLeft(error: unknown): boolean {
  if (error === null || error === undefined) return false;
  if (error instanceof TransportNotConnectedError) return true;
  const e = error as { code?: unknown; cause?: { code?: unknown } };
  const code = typeof e.code === 'string' ? e.code : typeof e.cause?.code === 'string' ? e.cause.code : '';
  if (BEFORE_CONNECT_CODES.has(code)) return true;
  // an HTTP status the server refused the message with before running anything (an expired
  // session, a refused credential)
  return error instanceof StreamableHTTPError && [401, 403, 404].includes(error.code ?? 0);
}

export class ObservedTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T, extra?: MessageExtraInfo) => void;
  private readonly watched = new Map<string, SendFate>();
  private closed = false;

  /** `metaKey`: the `_meta` key that carries a call's idempotency key. */
  constructor(
    readonly inner: Transport,
    private readonly metaKey: string,
  ) {
    inner.onclose = () => {
      this.closed = true;
      this.onclose?.();
    };
    inner.onerror = (e) => this.onerror?.(e);
    inner.onmessage = (m, extra) => this.onmessage?.(m, extra);
  }

  get sessionId(): string | undefined {
    return this.inner.sessionId;
  }

  setProtocolVersion(version: string): void {
    this.inner.setProtocolVersion?.(version);
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  /** Starts watching the `tools/call` that carries `key` in its `_meta` under the meta key. */
  watch(key: string): void {
    this.watched.set(key, { handed: false });
  }

  /** What became of the watched message (and stops watching it). */
  fate(key: string): SendFate {
    const f = this.watched.get(key) ?? { handed: false };
    this.watched.delete(key);
    return f;
  }

  async send(message: JSONRPCMessage, options?: TransportSendOptions): Promise<void> {
    const key = this.keyOf(message);
    // a stdio transport whose process is gone has nothing to write to: the message stays here
    if (this.closed || (this.inner instanceof StdioClientTransport && this.inner.pid === null))
      throw new TransportNotConnectedError();
    if (key !== null) this.watched.set(key, { handed: true, error: null });
    try {
      await this.inner.send(message, options);
    } catch (err) {
      if (key !== null && this.watched.has(key)) this.watched.set(key, { handed: true, error: err });
      throw err;
    }
  }

  private keyOf(message: JSONRPCMessage): string | null {
    if (!('method' in message) || message.method !== 'tools/call' || !('id' in message)) return null;
    const meta = (message.params as { _meta?: Record<string, unknown> } | undefined)?._meta;
    const key = meta?.[this.metaKey];
    return typeof key === 'string' && this.watched.has(key) ? key : null;
  }
}
