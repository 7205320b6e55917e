// The MCP conformance suite (@modelcontextprotocol/conformance, the server scenarios that apply to
// a server of governed tools) run against the Hub's /mcp endpoint. The suite's client sends no
// credentials, so it talks to a forwarder on 127.0.0.1 that adds the client token — exactly what
// an MCP client configured with that token sends (Host and Origin pass through unchanged). Scenarios about prompts, resources, sampling,
// elicitation, logging, completion and the suite's own fixture tools (test_simple_text, …) do not
// apply: the endpoint serves tools only (docs/mcp.md#the-hub-as-an-mcp-server).
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEnv, type HubEnv } from '../../helpers.js';

const root = resolve(import.meta.dirname, '../../../..');
const SCENARIOS = ['server-initialize', 'ping', 'tools-list', 'dns-rebinding-protection'];

let env: HubEnv;
let forwarder: Server;
let url: string;
let out: string;

beforeAll(async () => {
  env = await startEnv();
  const target = new URL(`${env.hub.url}/mcp`);
  forwarder = createServer((req, res) => {
    const upstream = request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname,
        method: req.method,
        headers: { ...req.headers, authorization: `Bearer ${env.desk}` },
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((r) => forwarder.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(forwarder.address() as AddressInfo).port}/mcp`;
  out = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
});
afterAll(async () => {
  forwarder?.closeAllConnections();
  await new Promise<void>((r) => (forwarder ? forwarder.close(() => r()) : r()));
  await env?.close();
  if (out) rmSync(out, { recursive: true, force: true });
});

function runScenario(scenario: string): Promise<{ code: number | null; output: string }> {
  return new Promise((done) => {
    const child = spawn(
      process.execPath,
      [
        '--import',
        join(import.meta.dirname, 'node20-fs.mjs'),
        join(root, 'node_modules/@modelcontextprotocol/conformance/dist/index.js'),
        'server',
        '--url',
        url,
        '--scenario',
        scenario,
        '--output-dir',
        join(out, 'results'),
      ],
      { cwd: out, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let output = '';
    child.stdout.on('data', (c: Buffer) => (output += c.toString()));
    child.stderr.on('data', (c: Buffer) => (output += c.toString()));
    child.on('exit', (code) => done({ code, output }));
  });
}

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
}

function checksOf(scenario: string): Check[] {
  const dirs = readdirSync(join(out, 'results')).filter((d) => d.includes(scenario));
  expect(dirs, `results of ${scenario}`).toHaveLength(1);
  return JSON.parse(readFileSync(join(out, 'results', dirs[0]!, 'checks.json'), 'utf8')) as Check[];
}

describe('MCP conformance of the /mcp endpoint', () => {
  it.each(SCENARIOS)(
    '%s passes',
    async (scenario) => {
      const r = await runScenario(scenario);
      const checks = checksOf(scenario);
      const failed = checks.filter((c) => c.status === 'FAILURE');
      expect(failed, r.output.slice(-3000)).toEqual([]);
      expect(checks.filter((c) => c.status === 'SUCCESS').length).toBeGreaterThan(0);
      expect(r.code, r.output.slice(-3000)).toBe(0);
    },
    120_000,
  );
});
