/**
 * A proxy floor for `npm run bench:hub`, run as a process of its own like the Hubs
 * (proxy-floor-process.ts starts it): an HTTP server on 127.0.0.1 that takes the governed call the
 * load generator sends a Hub (POST /agent/v1/invocations, the same JSON), builds and signs the same
 * business request the Hub and the direct case send with the Hub's own dispatch code (buildRequest,
 * prepareSigned: HMAC signing, undici kept-alive connections, one request per connection at a
 * time) and answers the shop's status and body. No store, no checks beyond the JSON's shape.
 *
 * `durable`: before the request leaves, a permit row commits, and before the answer an outcome row
 * (two group-committed SQLite commits per call in a thread of its own, floor-commits.ts), the
 * request signed while the first commits — what a governed write cannot do without. `server`:
 * Node's `http` alone, or Fastify (the Hub's version, default options, its JSON parser).
 *
 *   node --import tsx bench/lib/proxy-floor.ts CONFIG_FILE   (a ProxyFloorConfig as JSON)
 */
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { CompiledOperation } from '../../src-hub/acc/types.js';
import { buildRequest, prepareSigned } from '../../src-hub/dispatch/index.js';
import { startFloorCommits, type FloorCommits, type FloorCommitStats } from './floor-commits.js';
import { createStageClock, type StageReading } from './proxy-floor-stages.js';

export interface ProxyFloorConfig {
  port: number;
  server: 'node' | 'fastify';
  /** The SQLite file of the two commits per call; absent: the bare proxy. */
  commitFile?: string;
  shop: { url: string; systemId: string; secret: string };
  operations: Record<string, CompiledOperation>;
}

interface Answer {
  status: number;
  body: string;
}

interface Invoke {
  invocation_id: string;
  tool: string;
  arguments: Record<string, unknown>;
}

const INVOKE_PATH = '/agent/v1/invocations';
const refuse = (status: number, code: string): Answer => ({ status, body: JSON.stringify({ code }) });

function asInvoke(input: unknown): Invoke | null {
  if (typeof input !== 'object' || input === null) return null;
  const { invocation_id: id, tool, arguments: args } = input as Record<string, unknown>;
  if (typeof id !== 'string' || id.length === 0 || id.length > 128) return null;
  if (typeof tool !== 'string') return null;
  if (typeof args !== 'object' || args === null || Array.isArray(args)) return null;
  return { invocation_id: id, tool, arguments: args as Record<string, unknown> };
}

function createForwarder(
  config: ProxyFloorConfig,
  commits: FloorCommits | null,
  clock: ReturnType<typeof createStageClock>,
) {
  const forward = async (input: unknown): Promise<Answer> => {
    const call = asInvoke(input);
    if (!call) return refuse(400, 'invalid_request');
    const operation = config.operations[call.tool];
    if (!operation) return refuse(404, 'unknown_tool');
    let request: ReturnType<typeof buildRequest>;
    try {
      request = buildRequest(operation, call.arguments);
    } catch {
      return refuse(400, 'invalid_arguments');
    }
    const permit = commits?.commit({
      kind: 'permit',
      call: call.invocation_id,
      tool: call.tool,
      args: JSON.stringify(call.arguments),
      at: Date.now(),
    });
    // signed while the permit commits, as the Hub does; it leaves only once the commit returned
    const prepared = prepareSigned({
      baseUrl: config.shop.url,
      systemId: config.shop.systemId,
      allowInsecureHttp: false,
      secret: config.shop.secret,
      request,
      signedPath: 'operation',
      onBehalfOf: 'operator@demo.local',
      jobId: 'bench',
      idempotencyKey: call.invocation_id,
      timeoutMs: 10_000,
    });
    const t0 = performance.now();
    if (permit) {
      await permit;
      clock.record('permit commit', performance.now() - t0);
    }
    const t1 = performance.now();
    const result = await prepared.send();
    const t2 = performance.now();
    clock.record('shop', t2 - t1);
    if (result.kind !== 'response') return refuse(502, `${result.kind}:${result.reason}`);
    const body = JSON.stringify(result.body);
    if (commits) {
      await commits.commit({
        kind: 'outcome',
        call: call.invocation_id,
        status: result.status,
        body,
        at: Date.now(),
      });
      clock.record('outcome commit', performance.now() - t2);
    }
    return { status: result.status, body };
  };
  return async (input: unknown): Promise<Answer> => {
    const from = performance.now();
    const answer = await forward(input);
    clock.record('in proxy', performance.now() - from);
    return answer;
  };
}

function send(res: ServerResponse, a: Answer): void {
  res.writeHead(a.status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(a.body),
  });
  res.end(a.body);
}

/** What GET /floor/stats answers: the commits so far, and the stages since the last reading. */
export interface ProxyFloorStats {
  commits: FloorCommitStats | null;
  stages: StageReading;
}

async function statsBody(
  commits: FloorCommits | null,
  clock: ReturnType<typeof createStageClock>,
): Promise<string> {
  return JSON.stringify({
    commits: commits ? await commits.stats() : null,
    stages: clock.read(),
  } satisfies ProxyFloorStats);
}

async function listenNode(
  config: ProxyFloorConfig,
  forward: (input: unknown) => Promise<Answer>,
  stats: () => Promise<string>,
): Promise<void> {
  const failed = (res: ServerResponse) => (err: unknown) =>
    send(res, refuse(500, String((err as Error)?.message ?? err)));
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/health')
      return send(res, { status: 200, body: '{"status":"ok"}' });
    if (req.method === 'GET' && req.url === '/floor/stats') {
      stats().then((body) => send(res, { status: 200, body }), failed(res));
      return;
    }
    if (req.method !== 'POST' || req.url !== INVOKE_PATH) return send(res, refuse(404, 'not_found'));
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let input: unknown;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        return send(res, refuse(400, 'invalid_json'));
      }
      forward(input).then((a) => send(res, a), failed(res));
    });
  });
  await new Promise<void>((resolve) => server.listen(config.port, '127.0.0.1', resolve));
}

async function listenFastify(
  config: ProxyFloorConfig,
  forward: (input: unknown) => Promise<Answer>,
  stats: () => Promise<string>,
): Promise<void> {
  const app = Fastify({ logger: false });
  app.get('/health', async () => ({ status: 'ok' }));
  app.get('/floor/stats', async (_req, reply) => reply.type('application/json').send(await stats()));
  app.post(INVOKE_PATH, async (req, reply) => {
    const a = await forward(req.body);
    return reply.code(a.status).type('application/json').send(a.body);
  });
  await app.listen({ host: '127.0.0.1', port: config.port });
}

const configFile = process.argv[2];
if (!configFile) throw new Error('usage: proxy-floor.ts CONFIG_FILE');
const config = JSON.parse(readFileSync(configFile, 'utf8')) as ProxyFloorConfig;
const commits = config.commitFile ? await startFloorCommits(config.commitFile) : null;
const clock = createStageClock();
const forward = createForwarder(config, commits, clock);
const stats = () => statsBody(commits, clock);
// exit (rather than die) on SIGTERM, so a CPU profile asked for is written
process.on('SIGTERM', () => process.exit(0));
if (config.server === 'fastify') await listenFastify(config, forward, stats);
else await listenNode(config, forward, stats);
