/**
 * One MCP client connection of the Hub, made with the official SDK: its stdio transport (a process
 * the Hub starts, with only the environment it is given) or its Streamable HTTP transport (with the
 * bearer token and a bounded fetch), wrapped to observe whether a call left (observed-transport.ts).
 * `initialize` must answer within the timeout, else the connection is closed (a started process is
 * stopped) and nothing is kept.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  ToolListChangedNotificationSchema,
  type ServerCapabilities,
} from '@modelcontextprotocol/sdk/types.js';
import { boundedFetch } from './bounded-fetch.js';
import { IDEMPOTENCY_KEY_META } from './meta-keys.js';
import { ObservedTransport } from './observed-transport.js';
import type { McpSecrets, McpServerSettings } from './types.js';

export interface McpLimits {
  /** `initialize` (and a connection's start) must finish within this. */
  initializeTimeoutMs: number;
  /** One message from the server (stdio line, JSON answer) may be at most this many bytes. */
  maxMessageBytes: number;
}

export interface McpConnection {
  client: Client;
  transport: ObservedTransport;
  serverInfo: { name: string; version: string } | null;
  capabilities: ServerCapabilities;
  /** The server's process id (stdio), for tests and the supervisor's logs. */
  pid: number | null;
  isOpen(): boolean;
  /** Resolves once the connection is gone (the process exited, the transport closed). */
  closed: Promise<void>;
  close(): Promise<void>;
  /** The last bytes the server wrote to stderr (stdio), for diagnostics; never contains what the Hub sent. */
  stderrTail(): string;
}

export class McpConnectError extends Error {}

const STDERR_TAIL = 4096;

function makeTransport(
  settings: McpServerSettings,
  secrets: McpSecrets,
  limits: McpLimits,
): { transport: Transport; stderr: () => string } {
  if (settings.transport === 'stdio') {
    if (!settings.command) throw new McpConnectError('the stdio server has no command');
    const t = new StdioClientTransport({
      command: settings.command,
      args: settings.args,
      env: { ...settings.env, ...secrets.env },
      ...(settings.cwd ? { cwd: settings.cwd } : {}),
      stderr: 'pipe',
      maxBufferSize: limits.maxMessageBytes,
    });
    let tail = '';
    t.stderr?.on('data', (chunk: Buffer) => {
      tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL);
    });
    return { transport: t, stderr: () => tail };
  }
  if (!settings.url) throw new McpConnectError('the Streamable HTTP server has no URL');
  const headers: Record<string, string> = {};
  if (secrets.bearer_token) headers.authorization = `Bearer ${secrets.bearer_token}`;
  const t = new StreamableHTTPClientTransport(new URL(settings.url), {
    requestInit: { headers },
    fetch: boundedFetch({
      maxMessageBytes: limits.maxMessageBytes,
      maxStreamBytes: limits.maxMessageBytes * 8,
    }),
    // a lost GET stream is re-opened a few times; a call's own answer never depends on it
    reconnectionOptions: {
      initialReconnectionDelay: 1000,
      maxReconnectionDelay: 30_000,
      reconnectionDelayGrowFactor: 2,
      maxRetries: 5,
    },
  });
  return { transport: t, stderr: () => '' };
}

export async function connectServer(opts: {
  settings: McpServerSettings;
  secrets: McpSecrets;
  limits: McpLimits;
  hubVersion: string;
  /** The server said its tool list changed (`notifications/tools/list_changed`). */
  onToolsChanged?: () => void;
}): Promise<McpConnection> {
  const { transport: inner, stderr } = makeTransport(opts.settings, opts.secrets, opts.limits);
  const transport = new ObservedTransport(inner, IDEMPOTENCY_KEY_META);
  const client = new Client({ name: 'bailing-hub', version: opts.hubVersion }, { capabilities: {} });
  let open = false;
  let markClosed: () => void = () => undefined;
  const closed = new Promise<void>((resolve) => (markClosed = resolve));
  client.onclose = () => {
    open = false;
    markClosed();
  };
  // errors of the transport (a bad line, a lost stream) surface through the calls they affect
  client.onerror = () => undefined;
  if (opts.onToolsChanged) {
    const onChanged = opts.onToolsChanged;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => onChanged());
  }
  try {
    await client.connect(transport, { timeout: opts.limits.initializeTimeoutMs });
  } catch (err) {
    await client.close().catch(() => undefined);
    const words = stderr().trim().split('\n').slice(-3).join(' | ');
    throw new McpConnectError(
      `the MCP server did not complete initialize: ${(err as Error).message}${words ? ` (stderr: ${words.slice(0, 500)})` : ''}`,
    );
  }
  open = true;
  const pid = inner instanceof StdioClientTransport ? inner.pid : null;
  return {
    client,
    transport,
    serverInfo: client.getServerVersion()
      ? { name: client.getServerVersion()!.name, version: client.getServerVersion()!.version }
      : null,
    capabilities: client.getServerCapabilities() ?? {},
    pid,
    isOpen: () => open,
    closed,
    close: () => client.close().catch(() => undefined),
    stderrTail: stderr,
  };
}
