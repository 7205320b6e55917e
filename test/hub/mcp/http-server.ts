/**
 * A Streamable HTTP MCP server for the tests, built with the official SDK on 127.0.0.1: one
 * McpServer per session, an optional bearer token, and a ledger of what its tools did.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const KEY = 'dev.bailingdesk/idempotency_key';

export interface HttpMcpServer {
  url: string;
  notes: Array<{ note: string; key: string | null }>;
  cancelled: string[];
  close(): Promise<void>;
}

function readBody(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      try {
        resolve(text ? JSON.parse(text) : undefined);
      } catch (err) {
        reject(err as Error);
      }
    });
    req.on('error', reject);
  });
}

function buildServer(state: HttpMcpServer): McpServer {
  const server = new McpServer({ name: 'http-notes', version: '1.0.0' });
  const write = { readOnlyHint: false, destructiveHint: false, openWorldHint: false };
  server.registerTool(
    'add_note',
    { description: 'Adds a note', inputSchema: { note: z.string() }, annotations: write },
    ({ note }, extra) => {
      const key = extra._meta?.[KEY];
      state.notes.push({ note, key: typeof key === 'string' ? key : null });
      return { content: [{ type: 'text', text: `added ${note}` }] };
    },
  );
  server.registerTool(
    'hang',
    { description: 'Never answers', inputSchema: { note: z.string() }, annotations: write },
    async (_args, extra) => {
      const key = extra._meta?.[KEY];
      await new Promise<void>((resolve) =>
        extra.signal.addEventListener('abort', () => {
          state.cancelled.push(typeof key === 'string' ? key : '?');
          resolve();
        }),
      );
      return { content: [] };
    },
  );
  return server;
}

export async function startHttpMcpServer(opts: { bearer?: string } = {}): Promise<HttpMcpServer> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const state: HttpMcpServer = { url: '', notes: [], cancelled: [], close: async () => undefined };
  const http: Server = createServer((req, res) => {
    void (async () => {
      if (opts.bearer && req.headers.authorization !== `Bearer ${opts.bearer}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"unauthorized"}');
        return;
      }
      const body = req.method === 'POST' ? await readBody(req) : undefined;
      const sid = req.headers['mcp-session-id'];
      let transport = typeof sid === 'string' ? transports.get(sid) : undefined;
      if (!transport) {
        if (typeof sid === 'string') {
          res.writeHead(404).end();
          return;
        }
        const t = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, t),
        });
        t.onclose = () => {
          if (t.sessionId) transports.delete(t.sessionId);
        };
        await buildServer(state).connect(t);
        transport = t;
      }
      await transport.handleRequest(req, res, body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  state.close = async () => {
    for (const t of transports.values()) await t.close().catch(() => undefined);
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  };
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`;
  return state;
}
