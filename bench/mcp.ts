/**
 * npm run bench:mcp — a governed MCP call (client → Hub agent API → the Hub's MCP client → the
 * server) versus calling the same MCP server directly with the SDK's client, over stdio and over
 * Streamable HTTP, at concurrency 1 and 16, in one run. The Hub runs in this process on SQLite
 * (a governed write fsyncs its `dispatching` record before tools/call and its outcome after);
 * the servers are processes of their own (bench/lib/mcp-bench-server.mjs). BENCH_CALLS sets calls
 * per case (default 300). Figures are printed, never asserted.
 */
import { spawn } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Declaration } from '../src-shared/hub-api.js';
import { createHub } from '../src-hub/index.js';
import { benchIdsLabel, benchInvocationId } from './lib/invocation-ids.js';
import { fmt, heading, SUMMARY_HEADERS, summaryRow, table } from './lib/print.js';
import { runConcurrent, summarize, type Summary } from './lib/stats.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 300);
const CONCURRENCY = [1, 16] as const;
const SERVER = resolve(import.meta.dirname, 'lib/mcp-bench-server.mjs');

async function startHttpServer(): Promise<{ url: string; stop: () => void }> {
  const child = spawn(process.execPath, [SERVER, 'http'], { stdio: ['ignore', 'pipe', 'inherit'] });
  const first = await new Promise<string>((res) =>
    createInterface({ input: child.stdout }).once('line', (line) => res(line.trim())),
  );
  return { url: first, stop: () => child.kill('SIGTERM') };
}

async function direct(transport: 'stdio' | 'http', url: string | null): Promise<Map<number, Summary>> {
  const client = new Client({ name: 'bench-direct', version: '1.0.0' });
  await client.connect(
    transport === 'stdio'
      ? new StdioClientTransport({ command: process.execPath, args: [SERVER, 'stdio'] })
      : new StreamableHTTPClientTransport(new URL(url!)),
  );
  const out = new Map<number, Summary>();
  try {
    const call = (i: number) =>
      client.callTool({ name: 'add_note', arguments: { note: `d${i}` } }).then(() => undefined);
    await runConcurrent(20, 4, call); // warm-up
    for (const conc of CONCURRENCY) {
      const r = await runConcurrent(CALLS, conc, call);
      out.set(conc, summarize(r.samples, r.wallMs));
    }
  } finally {
    await client.close();
  }
  return out;
}

const dataDir = mkdtempSync(join(tmpdir(), 'bench-mcp-'));
const token = `bdc_bench.${randomBytes(24).toString('base64url')}`;
const http = await startHttpServer();
const hub = await createHub({
  dataDir,
  settings: { rateLimits: { agent: null, admin: null, authFailures: null } },
  config: {
    systems: [
      {
        kind: 'mcp',
        system_id: 'notes-stdio',
        name: 'Notes (stdio)',
        server: { transport: 'stdio', command: process.execPath, args: [SERVER, 'stdio'] },
      },
      {
        kind: 'mcp',
        system_id: 'notes-http',
        name: 'Notes (HTTP)',
        server: { transport: 'streamable_http', url: http.url },
      },
    ],
    clients: [{ client_id: 'bench', name: 'bench', token }],
    authorizations: ['notes-stdio', 'notes-http'].map((s) => ({
      authorization_ref: `auth-${s}`,
      system_id: s,
      account: 'bench',
      on_behalf_of: 'bench@local',
      grant_to: ['bench'],
    })),
  },
});

const post = async (path: string, body: unknown) => {
  const r = await fetch(hub.url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: r.status, body: (await r.json()) as Record<string, unknown> };
};

async function governed(systemId: string): Promise<Map<number, Summary>> {
  const authRef = `auth-${systemId}`;
  const search = await post('/agent/v1/tools/search', {
    query: 'add note',
    authorization_refs: [authRef],
    limit: 5,
  });
  const decl = (search.body.declarations as Declaration[]).find((d) => d.tool === 'add_note');
  if (!decl) throw new Error(`no add_note for ${authRef}: ${JSON.stringify(search.body)}`);
  const run = await post('/agent/v1/runs', {
    agent_session_id: `bench-${randomUUID()}`,
    turn_id: 't',
    authorization_ref: authRef,
  });
  const states: Record<string, number> = {};
  const call = async (i: number) => {
    const r = await post('/agent/v1/invocations', {
      invocation_id: benchInvocationId(),
      run_id: run.body.run_id,
      authorization_ref: authRef,
      tool: 'add_note',
      declaration_revision: decl.declaration_revision,
      arguments: { note: `g${i}` },
      host_call_id: `h${i}`,
    });
    const s = String(r.body.state);
    states[s] = (states[s] ?? 0) + 1;
  };
  await runConcurrent(20, 4, call); // warm-up
  const out = new Map<number, Summary>();
  for (const conc of CONCURRENCY) {
    const r = await runConcurrent(CALLS, conc, call);
    out.set(conc, summarize(r.samples, r.wallMs));
  }
  if (Object.keys(states).some((s) => s !== 'succeeded'))
    console.log(`  ${systemId}: states ${JSON.stringify(states)}`);
  return out;
}

try {
  const rows: Array<Array<string | number>> = [];
  const ratios: Array<Array<string | number>> = [];
  for (const [transport, systemId] of [
    ['stdio', 'notes-stdio'],
    ['http', 'notes-http'],
  ] as const) {
    const d = await direct(transport, http.url);
    const g = await governed(systemId);
    for (const conc of CONCURRENCY) {
      rows.push(summaryRow(`direct ${transport}`, conc, d.get(conc)!));
      rows.push(summaryRow(`governed ${transport}`, conc, g.get(conc)!));
      ratios.push([
        transport,
        String(conc),
        fmt(g.get(conc)!.p50_ms / d.get(conc)!.p50_ms),
        fmt(g.get(conc)!.p99_ms / d.get(conc)!.p99_ms),
        fmt(g.get(conc)!.per_s / d.get(conc)!.per_s),
      ]);
    }
  }
  heading(
    `MCP: governed calls through the Hub vs the SDK client straight to the server (${CALLS} writes per case; ${benchIdsLabel()})`,
  );
  console.log(table(SUMMARY_HEADERS, rows));
  heading('ratios governed / direct');
  console.log(table(['transport', 'conc', 'p50 ×', 'p99 ×', 'throughput ×'], ratios));
  console.log(`\nHub store: ${hub.store.durability}`);
} finally {
  await hub.close();
  http.stop();
  rmSync(dataDir, { recursive: true, force: true });
}
