/**
 * The Hub's live connections to MCP servers, one per system, in this Hub process
 * (docs/mcp.md#supervision). A stdio server is a child process the Hub started: when it exits the
 * supervisor starts it again after a growing pause (1 s doubling to 30 s); a Streamable HTTP server
 * is reconnected the same way. Each (re)connection reads the tool list again, and a
 * `notifications/tools/list_changed` does too (debounced), so declarations follow the server.
 * A call that finds no connection asks for one once, bounded by its own timeout; if none can be
 * made the call never left (`not_sent_not_connected`).
 * A retired system's connection is closed (its process stopped) and never made again: at once in
 * the process that retired it (`retire`), and within `sweepMs` in any other process on the same
 * store, which reads `retired_at` from the store as it reads every registration change.
 */
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { McpConnectionState } from '../../src-shared/states.js';
import type { SystemRecord } from '../store/types.js';
import { connectServer, McpConnectError, type McpConnection, type McpLimits } from './connect.js';
import type { McpSecrets } from './types.js';

export interface McpLiveState {
  connection: McpConnectionState | null;
  server_info: { name: string; version: string } | null;
}

export interface McpSupervisor {
  /** The connection a call may use now, connecting (once, within `timeoutMs`) if needed. */
  connectionFor(system: SystemRecord, timeoutMs: number): Promise<McpConnection | { notConnected: string }>;
  /** Takes over the connection registration made, so a stdio server is not started twice. */
  adopt(system: SystemRecord, conn: McpConnection): void;
  /** A connection made outside (registration) reports `notifications/tools/list_changed` here. */
  toolsChanged(systemId: string): void;
  /** Connects every MCP system the store lists (in the background; failures are retried). */
  start(): Promise<void>;
  /** The system was retired: its connection is closed (a stdio server's process stopped, awaited). */
  retire(systemId: string): Promise<void>;
  state(systemId: string): McpLiveState;
  /** The connection's process id (stdio), if connected: for tests and diagnostics. */
  pid(systemId: string): number | null;
  close(): Promise<void>;
}

export interface SupervisorDeps {
  limits: McpLimits;
  hubVersion: string;
  listSystems(): Promise<SystemRecord[]>;
  getSystem(systemId: string): Promise<SystemRecord | null>;
  /** The server's tools may have changed (list_changed, or a reconnection). */
  onToolsChanged(systemId: string): void;
  log(event: string, detail: Record<string, unknown>): void;
  /** The server's secrets, opened right before connecting (sealed in the store: src-hub/secrets). */
  openSecrets(system: SystemRecord): McpSecrets;
  /** Pause before reconnecting after `attempt` failures (ms). */
  backoffMs?: (attempt: number) => number;
  /** How often the store is read for systems retired by another process (ms; default 5000). */
  sweepMs?: number;
}

interface Entry {
  fingerprint: string;
  conn: McpConnection | null;
  connecting: Promise<McpConnection> | null;
  state: McpConnectionState;
  attempts: number;
  timer: NodeJS.Timeout | null;
  changedTimer: NodeJS.Timeout | null;
}

const fingerprintOf = (s: SystemRecord) =>
  sha256Hex(canonicalJson({ mcp: s.mcp, credential: sha256Hex(s.signing_secret) }));

const defaultBackoff = (attempt: number) => Math.min(30_000, 1000 * 2 ** Math.max(0, attempt - 1));

export function createMcpSupervisor(deps: SupervisorDeps): McpSupervisor {
  const entries = new Map<string, Entry>();
  let closing = false;
  const backoff = deps.backoffMs ?? defaultBackoff;

  const toolsChanged = (systemId: string, e: Entry) => {
    if (e.changedTimer) clearTimeout(e.changedTimer);
    e.changedTimer = setTimeout(() => {
      e.changedTimer = null;
      if (!closing) deps.onToolsChanged(systemId);
    }, 200);
    e.changedTimer.unref();
  };

  const watchClose = (systemId: string, e: Entry, conn: McpConnection) => {
    void conn.closed.then(() => {
      if (e.conn !== conn) return;
      e.conn = null;
      e.state = 'disconnected';
      deps.log('mcp.disconnected', { system_id: systemId, pid: conn.pid });
      schedule(systemId, e);
    });
  };

  const attach = (systemId: string, e: Entry, conn: McpConnection) => {
    e.conn = conn;
    e.state = 'connected';
    e.attempts = 0;
    watchClose(systemId, e, conn);
  };

  const connect = (system: SystemRecord, e: Entry): Promise<McpConnection> => {
    if (e.connecting) return e.connecting;
    e.state = 'connecting';
    const systemId = system.system_id;
    const p = connectServer({
      settings: system.mcp!,
      secrets: deps.openSecrets(system),
      limits: deps.limits,
      hubVersion: deps.hubVersion,
      onToolsChanged: () => {
        if (entries.get(systemId) === e) toolsChanged(systemId, e);
      },
    }).then(
      (conn) => {
        e.connecting = null;
        if (closing || entries.get(systemId) !== e) {
          void conn.close();
          throw new McpConnectError('the supervisor stopped');
        }
        attach(systemId, e, conn);
        deps.log('mcp.connected', { system_id: systemId, pid: conn.pid });
        // the server may have changed while it was not connected: read its tools again
        toolsChanged(systemId, e);
        return conn;
      },
      (err: unknown) => {
        e.connecting = null;
        e.state = 'disconnected';
        e.attempts += 1;
        deps.log('mcp.connect_failed', { system_id: systemId, attempt: e.attempts, error: String(err) });
        schedule(systemId, e);
        throw err;
      },
    );
    e.connecting = p;
    return p;
  };

  const schedule = (systemId: string, e: Entry) => {
    if (closing || e.timer || entries.get(systemId) !== e) return;
    e.timer = setTimeout(
      () => {
        e.timer = null;
        void (async () => {
          const system = await deps.getSystem(systemId).catch(() => null);
          if (closing || entries.get(systemId) !== e) return;
          if (!system || system.kind !== 'mcp' || !system.mcp || system.retired_at !== null) {
            entries.delete(systemId);
            return;
          }
          if (e.conn?.isOpen() || e.connecting) return;
          if (fingerprintOf(system) !== e.fingerprint) e.fingerprint = fingerprintOf(system);
          e.attempts = Math.max(e.attempts, 1);
          await connect(system, e).catch(() => undefined);
        })();
      },
      backoff(Math.max(1, e.attempts)),
    );
    e.timer.unref();
  };

  const entryFor = (system: SystemRecord): Entry => {
    const fp = fingerprintOf(system);
    let e = entries.get(system.system_id);
    if (e && e.fingerprint !== fp) {
      // re-registered with other settings: the old connection goes
      void retire(system.system_id, e);
      e = undefined;
    }
    if (!e) {
      e = {
        fingerprint: fp,
        conn: null,
        connecting: null,
        state: 'disconnected',
        attempts: 0,
        timer: null,
        changedTimer: null,
      };
      entries.set(system.system_id, e);
    }
    return e;
  };

  const retire = async (systemId: string, e: Entry): Promise<void> => {
    entries.delete(systemId);
    if (e.timer) clearTimeout(e.timer);
    if (e.changedTimer) clearTimeout(e.changedTimer);
    const conn = e.conn ?? (await e.connecting?.catch(() => null));
    await conn?.close();
  };

  // another process (a sibling Hub, the operator CLI) may retire a system this one is connected to
  const sweep = async () => {
    if (closing || entries.size === 0) return;
    const systems = new Map((await deps.listSystems()).map((s) => [s.system_id, s]));
    for (const [systemId, e] of [...entries]) {
      const s = systems.get(systemId);
      if (!s || s.retired_at !== null) {
        deps.log('mcp.retired', { system_id: systemId, pid: e.conn?.pid ?? null });
        await retire(systemId, e);
      }
    }
  };
  const sweeper = setInterval(() => {
    void sweep().catch((err: unknown) => deps.log('mcp.sweep_failed', { error: String(err) }));
  }, deps.sweepMs ?? 5000);
  sweeper.unref();

  return {
    async connectionFor(system, timeoutMs) {
      if (closing) return { notConnected: 'the Hub is shutting down' };
      if (system.kind !== 'mcp' || !system.mcp) return { notConnected: 'not an MCP system' };
      if (system.retired_at !== null) return { notConnected: 'the system is retired' };
      const e = entryFor(system);
      if (e.conn?.isOpen()) return e.conn;
      let timer: NodeJS.Timeout | undefined;
      try {
        return await Promise.race([
          connect(system, e),
          new Promise<never>((_, reject) => {
            timer = setTimeout(() => reject(new Error(`no connection within ${timeoutMs} ms`)), timeoutMs);
          }),
        ]);
      } catch (err) {
        return { notConnected: (err as Error).message };
      } finally {
        if (timer) clearTimeout(timer);
      }
    },
    adopt(system, conn) {
      if (closing) {
        void conn.close();
        return;
      }
      const e = entryFor(system);
      if (e.conn && e.conn !== conn) void e.conn.close();
      attach(system.system_id, e, conn);
    },
    toolsChanged(systemId) {
      const e = entries.get(systemId);
      if (e) toolsChanged(systemId, e);
    },
    async start() {
      for (const s of await deps.listSystems()) {
        if (s.kind !== 'mcp' || !s.mcp || s.retired_at !== null || closing) continue;
        const e = entryFor(s);
        if (!e.conn && !e.connecting) void connect(s, e).catch(() => undefined);
      }
    },
    async retire(systemId) {
      const e = entries.get(systemId);
      if (e) await retire(systemId, e);
    },
    state(systemId) {
      const e = entries.get(systemId);
      if (!e) return { connection: null, server_info: null };
      return { connection: e.state, server_info: e.conn?.serverInfo ?? null };
    },
    pid(systemId) {
      return entries.get(systemId)?.conn?.pid ?? null;
    },
    async close() {
      closing = true;
      clearInterval(sweeper);
      const all = [...entries.entries()];
      entries.clear();
      for (const [, e] of all) {
        if (e.timer) clearTimeout(e.timer);
        if (e.changedTimer) clearTimeout(e.changedTimer);
      }
      await Promise.allSettled(
        all.map(async ([, e]) => {
          const c = e.conn ?? (await e.connecting?.catch(() => null));
          await c?.close();
        }),
      );
    },
  };
}
