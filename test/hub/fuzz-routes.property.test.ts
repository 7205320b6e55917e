// Property-based fuzzing of every route of the Hub with hostile methods, paths, query strings,
// headers and bodies, sent as raw HTTP. For every request: an answer arrives and it is never 5xx
// (save the documented 502 system_unreachable for a base URL nothing listens on);
// every error is the documented envelope (code listed in docs/hub-api.md with that status); and a
// rejected request changes nothing — the store (systems, clients, authorizations, approvals, tasks,
// invocations, audit, events, ...) and the demo systems' ledgers are exactly as before it.
// Seeded: each run prints its seed; FUZZ_SEED=<n> replays a run, FUZZ_RUNS=<n> sets its length.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HUB_ERROR_CODES, HubErrorBodySchema } from '../../src-shared/hub-api.js';
import { openHubContext } from '../../src-hub/index.js';
import { buildApp, type HubRoute } from '../../src-hub/http/server.js';
import { startEnv, token, type HubEnv } from './helpers.js';
import { rawExchange } from './raw-http.js';
import { settledSnapshot } from './snapshot.js';

const seed = Number(process.env.FUZZ_SEED ?? Date.now() % 2 ** 31);
const runs = Number(process.env.FUZZ_RUNS ?? 3_000);
console.log(`hub route fuzz: seed ${seed}, ${runs} cases (FUZZ_SEED=${seed} replays this run)`);

/** code → HTTP status, read from the error table of docs/hub-api.md. */
const DOCUMENTED = new Map(
  [
    ...readFileSync(resolve(import.meta.dirname, '../../docs/hub-api.md'), 'utf8').matchAll(
      /^\| `([a-z_]+)` +\| (\d{3}) +\|/gm,
    ),
  ].map((m) => [m[1] as string, Number(m[2])]),
);

let env: HubEnv;
let db: Database.Database;
let routes: HubRoute[];
const ids: Record<string, string[]> = {};

beforeAll(async () => {
  env = await startEnv({
    settings: {
      bodyLimit: 64 * 1024,
      requestTimeoutMs: 600,
      headersTimeoutMs: 400,
      // every request gets through to its route: the limits have their own tests
      rateLimits: { agent: null, admin: null, authFailures: null },
      sseMaxStreamsPerClient: 1_000,
    },
  });
  db = new Database(join(env.dataDir, 'hub.sqlite'), { readonly: true, fileMustExist: true });
  const task = await env.agent('POST', '/agent/v1/tasks', {
    title: 'fuzz',
    authorizations: [
      { authorization_ref: 'auth-shop-a', tools: ['update_product_content', 'publish_listing'] },
    ],
    write_budget: 50,
    in_flight_limit: 2,
  });
  const runId = await env.run('auth-shop-a');
  const done = await env.invoke({
    authRef: 'auth-shop-a',
    tool: 'update_product_content',
    args: { product_id: 42, description: 'fuzz' },
    runId,
  });
  const pending = await env.invoke({
    authRef: 'auth-shop-a',
    tool: 'publish_listing',
    args: { product_id: 42, channel: 'marketplace' },
  });
  await env.admin('POST', '/admin/v1/authorizations', {
    system_id: 'shop-b',
    account: 'fuzz',
    on_behalf_of: 'fuzz@demo.local',
    authorization_ref: 'auth-fuzz',
  });
  await env.admin('POST', '/admin/v1/authorizations/auth-fuzz/grants', { client_id: 'desk' });
  ids.id = [
    task.body.task_id,
    runId,
    done.body.invocation_id,
    pending.body.invocation_id,
    pending.body.approval.approval_id,
    'shop-b',
  ];
  ids.ref = ['auth-fuzz', 'auth-shop-b'];
  ids.revision = [(await env.declaration('auth-shop-a', 'update_product_content')).declaration_revision];

  const scratch = mkdtempSync(join(tmpdir(), 'hub-routes-'));
  const { ctx } = await openHubContext({ dataDir: scratch });
  const built = buildApp(ctx);
  await built.app.ready();
  routes = built.routes.filter((r) => r.method !== 'HEAD');
  await built.app.close();
  await ctx.store.close();
  rmSync(scratch, { recursive: true, force: true });
});
afterAll(async () => {
  db?.close();
  await env?.close();
});

// ---------- generators ----------

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.string({ unit: 'binary-ascii', maxLength: 20 }),
  fc.constantFrom('', '%', '%zz', '%00', '%2e%2e', '..', '%2F', '%c0%af', '%ff%fe', '\u0000', 'ä', '\u202e'),
  fc.integer({ min: 90, max: 700 }).map((n) => 'x'.repeat(n)),
);

const paramValue = (name: string) =>
  fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom(...(ids[name] ?? ids.id!)) },
    { weight: 2, arbitrary: hostileString },
  );

function pathOf(template: string, values: string[], raw: boolean): string {
  let i = 0;
  return template.replace(/:[a-z_]+/g, () => {
    const v = values[i++] ?? '';
    return raw ? v : encodeURIComponent(v);
  });
}

const queryString = fc.oneof(
  { weight: 4, arbitrary: fc.constant('') },
  {
    weight: 2,
    arbitrary: fc
      .array(
        fc.tuple(
          fc.oneof(
            fc.constantFrom(
              'after',
              'state',
              'limit',
              'after_seq',
              'invocation_id',
              'task_id',
              'kind',
              'zz',
              'state[]',
              '__proto__',
            ),
            hostileString,
          ),
          fc.oneof(
            fc.constantFrom('-1', '0', '1e309', 'pending', '99999999999999999999', 'abc', ''),
            hostileString,
          ),
        ),
        { minLength: 1, maxLength: 4 },
      )
      .chain((pairs) =>
        fc
          .boolean()
          .map((raw) =>
            pairs
              .map(([k, v]) => (raw ? `${k}=${v}` : `${encodeURIComponent(k)}=${encodeURIComponent(v)}`))
              .join('&'),
          ),
      ),
  },
);

/** Bodies near what a route takes (a valid example with fields replaced, dropped or added). */
function exampleFor(route: HubRoute): Record<string, unknown> {
  const inv = `inv_${randomUUID()}`;
  const examples: Record<string, Record<string, unknown>> = {
    '/agent/v1/tools/search': { query: 'product', limit: 5 },
    '/agent/v1/tasks': {
      title: 't',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 1,
      in_flight_limit: 1,
    },
    '/agent/v1/runs': { agent_session_id: 's', turn_id: 't', authorization_ref: 'auth-fuzz' },
    '/agent/v1/invocations': {
      invocation_id: inv,
      run_id: ids.id![1],
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: ids.revision![0],
      arguments: { product_id: 42, description: 'x' },
      host_call_id: 'h',
    },
    '/admin/v1/systems': {
      system_id: 'fuzz-sys',
      name: 'n',
      base_url: 'http://127.0.0.1:1',
      signing_secret: 's'.repeat(20),
    },
    '/admin/v1/clients': { name: 'fuzz client' },
    '/admin/v1/authorizations': { system_id: 'shop-b', account: 'a', on_behalf_of: 'o' },
    '/admin/v1/authorizations/:ref/grants': { client_id: 'other' },
    '/admin/v1/authorizations/:ref/rebind': { account: 'b' },
    '/admin/v1/approvals/:id/decision': { decision_id: `d-${inv}`, decision: 'deny' },
  };
  return examples[route.url] ?? {};
}

const mutated = (route: HubRoute) =>
  fc
    .array(
      fc.tuple(
        fc.oneof(
          fc.constantFrom(...Object.keys(exampleFor(route)), 'extra', '__proto__'),
          fc.string({ maxLength: 8 }),
        ),
        fc.oneof(
          fc.constant(undefined),
          fc.jsonValue({ maxDepth: 3 }),
          fc.constantFrom(
            -1,
            0,
            Number.POSITIVE_INFINITY,
            1e308,
            Number.MAX_SAFE_INTEGER + 2,
            '',
            'x'.repeat(2_000),
            null,
            [],
            {},
          ),
          hostileString,
        ),
      ),
      { maxLength: 3 },
    )
    .map((changes) => {
      const body: Record<string, unknown> = { ...exampleFor(route) };
      for (const [k, v] of changes) {
        if (v === undefined) delete body[k];
        else
          Object.defineProperty(body, k, { value: v, enumerable: true, configurable: true, writable: true });
      }
      return JSON.stringify(body);
    });

const nested = fc
  .tuple(fc.integer({ min: 60, max: 20_000 }), fc.constantFrom('[', '{"a":'))
  .map(([depth, open]) => `${open.repeat(depth)}1${(open === '[' ? ']' : '}').repeat(depth)}`);

const body = (route: HubRoute) =>
  fc.oneof(
    { weight: 4, arbitrary: mutated(route) },
    { weight: 2, arbitrary: fc.constantFrom('', '{}') },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => JSON.stringify(v)) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        'null',
        '[]',
        '0',
        '"x"',
        'true',
        '{',
        '{"a":',
        '\u0000',
        '{"__proto__":{"x":1}}',
        '{"constructor":{"prototype":{"x":1}}}',
        '{"a":1,"a":2}',
      ),
    },
    { weight: 1, arbitrary: nested },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 200 }) },
    { weight: 1, arbitrary: fc.constant(`{"query":"${'q'.repeat(70_000)}"}`) },
  );

/** Mostly the token the route takes (so requests reach their route), else any other kind. */
const authorization = (route: HubRoute) =>
  fc.oneof(
    {
      weight: 8,
      arbitrary: route.url.startsWith('/admin/')
        ? fc.constant('admin')
        : fc.constantFrom('desk', 'desk', 'other'),
    },
    { weight: 2, arbitrary: fc.constantFrom('desk', 'admin', 'other') },
    { weight: 1, arbitrary: fc.constantFrom('none', 'forged', 'garbage', 'huge', 'lowercase') },
  );

const header = fc.tuple(
  fc.oneof(
    fc.constantFrom(
      'last-event-id',
      'x-forwarded-for',
      'accept',
      'connection',
      'content-encoding',
      'expect',
      'upgrade',
    ),
    fc.stringMatching(/^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,20}$/),
    fc.string({ maxLength: 6 }),
  ),
  fc.oneof(
    hostileString,
    fc.constantFrom('close', 'keep-alive', 'gzip', '100-continue', 'websocket', '0', '-1'),
  ),
);

const framing = fc.oneof(
  { weight: 20, arbitrary: fc.constant('exact') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'shorter',
      'invalid',
      'double',
      'chunked-and-length',
      'longer',
      'chunked',
      'bad-chunk',
    ),
  },
);

const request = fc.integer({ min: 0, max: 1_000_000 }).chain((i) => {
  const route = routes[i % routes.length] as HubRoute;
  const params = [...route.url.matchAll(/:([a-z_]+)/g)].map((m) => m[1] as string);
  return fc.record({
    route: fc.constant(route),
    method: fc.oneof(
      { weight: 12, arbitrary: fc.constant(route.method) },
      {
        weight: 1,
        arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'FOO', 'get'),
      },
    ),
    params: fc.tuple(...params.map(paramValue)),
    rawParams: fc.boolean(),
    query: queryString,
    authorization: authorization(route),
    contentType: fc.oneof(
      { weight: 8, arbitrary: fc.constant('application/json') },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          '',
          'application/json; charset=utf-8',
          'text/plain',
          'application/x-www-form-urlencoded',
          'APPLICATION/JSON',
          'application/jsonx',
          'multipart/form-data; boundary=x',
        ),
      },
    ),
    headers: fc.array(header, { maxLength: 3 }),
    body: route.method === 'POST' ? body(route) : fc.oneof(fc.constant(''), body(route)),
    framing,
  });
});

type Request = typeof request extends fc.Arbitrary<infer T> ? T : never;

function tokenFor(kind: string): string | null {
  switch (kind) {
    case 'desk':
      return env.desk;
    case 'other':
      return env.other;
    case 'admin':
      return env.adminToken;
    case 'forged':
      return token('desk');
    case 'garbage':
      return 'not a token at all';
    case 'huge':
      return 'h'.repeat(4_000);
    case 'lowercase':
      return env.desk.toLowerCase();
    default:
      return null;
  }
}

const chunk = (b: Buffer) =>
  b.length === 0 ? b : Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]);

function toRaw(r: Request): { head: string; body: Buffer } {
  const q = r.query === '' ? '' : `?${r.query}`;
  const target = `${pathOf(r.route.url, r.params as string[], r.rawParams)}${q}`;
  let body = Buffer.from(r.body, 'utf8');
  const lines = [`${r.method} ${target} HTTP/1.1`, 'Host: 127.0.0.1'];
  const tok = tokenFor(r.authorization);
  if (tok !== null) lines.push(`Authorization: Bearer ${tok}`);
  if (r.contentType !== '' && body.length > 0) lines.push(`Content-Type: ${r.contentType}`);
  for (const [name, value] of r.headers) lines.push(`${name}: ${value}`);
  switch (r.framing) {
    case 'shorter':
      lines.push(`Content-Length: ${Math.max(0, body.length - 1)}`);
      break;
    case 'longer':
      lines.push(`Content-Length: ${body.length + 10}`);
      break;
    case 'invalid':
      lines.push('Content-Length: 1x');
      break;
    case 'double':
      lines.push(`Content-Length: ${body.length}`, `Content-Length: ${body.length + 1}`);
      break;
    case 'chunked-and-length':
      lines.push(`Content-Length: ${body.length}`, 'Transfer-Encoding: chunked');
      break;
    case 'chunked':
      lines.push('Transfer-Encoding: chunked');
      body = Buffer.concat([chunk(body.subarray(0, 7)), chunk(body.subarray(7)), Buffer.from('0\r\n\r\n')]);
      break;
    case 'bad-chunk':
      // a chunk size that is not hex: the parser refuses the body after the route has the request
      lines.push('Transfer-Encoding: chunked');
      body = Buffer.concat([Buffer.from('zz\r\n'), body, Buffer.from('\r\n0\r\n\r\n')]);
      break;
    default:
      if (body.length > 0 || r.method === 'POST') lines.push(`Content-Length: ${body.length}`);
  }
  lines.push('Connection: close');
  return { head: `${lines.join('\r\n')}\r\n\r\n`, body };
}

describe('fuzzing every route', () => {
  it('covers every route the Hub serves', () => {
    expect(routes.length).toBeGreaterThanOrEqual(30);
    for (const r of routes) expect(['GET', 'POST']).toContain(r.method);
  });

  it('never 5xx, every error the documented envelope, rejected input changes nothing', async () => {
    const query = (sql: string) => db.prepare(sql).all();
    let before = await settledSnapshot(env, query);
    const seen = new Map<string, number>();
    await fc.assert(
      fc.asyncProperty(request, async (r) => {
        const { head, body } = toRaw(r);
        const answer = await rawExchange(env.hub.url, head, body, 10_000);
        const key = `${answer.status} ${answer.status >= 400 ? answerLabel(head, answer.body) : ''}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        expect(
          answer.status,
          `no answer (${answer.end}) to ${JSON.stringify(head.slice(0, 300))}`,
        ).toBeGreaterThanOrEqual(200);
        // the one 5xx in the contract reports a business system that cannot be reached (a base URL
        // the input pointed at), never a failure of the Hub itself
        if (answer.status >= 500)
          expect(
            `${answer.status} ${safeCode(answer.body)}`,
            `${head.slice(0, 300)} → ${answer.body.slice(0, 300)}`,
          ).toBe('502 system_unreachable');
        const after = await settledSnapshot(env, query);
        if (answer.status >= 400) {
          // the MCP endpoint answers protocol errors the way MCP requires: a JSON-RPC error
          // (authentication and framework errors before it keep the Hub's envelope)
          const jsonRpc = /^[A-Z]+ \/mcp[?\s]/.test(head) ? jsonRpcError(answer.body) : null;
          if (jsonRpc) expect(jsonRpc.code, answer.body.slice(0, 300)).toBeLessThan(0);
          else if (!head.startsWith('HEAD ')) {
            expect(answer.headers['content-type'] ?? '').toContain('application/json');
            const envelope = HubErrorBodySchema.parse(JSON.parse(answer.body));
            expect(HUB_ERROR_CODES as readonly string[]).toContain(envelope.error);
            expect(DOCUMENTED.get(envelope.error), `${envelope.error} is documented with its status`).toBe(
              answer.status,
            );
          }
          expect(after, `rejected input changed the store: ${head.slice(0, 300)}`).toBe(before);
        }
        before = after;
      }),
      { seed, numRuns: runs, endOnFailure: true },
    );
    console.log(
      'hub route fuzz answers:',
      [...seen.entries()]
        .sort((a, b) => b[1] - a[1])
        .map(([k, n]) => `${k.trim()}×${n}`)
        .join(', '),
    );
    // the run reached the routes, not only the front door
    const codes = [...seen.keys()].join(' ');
    for (const expected of ['invalid_request', 'unauthorized', 'forbidden', 'not_found'])
      expect(codes).toContain(expected);
    expect([...seen.keys()].some((k) => k.startsWith('20'))).toBe(true);
  });
});

/** A JSON-RPC error response's error (null when the body is not one). */
function jsonRpcError(text: string): { code: number; message: string } | null {
  try {
    const v = JSON.parse(text) as { jsonrpc?: unknown; error?: { code?: unknown; message?: unknown } };
    const e = v.error;
    return v.jsonrpc === '2.0' && typeof e?.code === 'number' && typeof e.message === 'string'
      ? { code: e.code, message: e.message }
      : null;
  } catch {
    return null;
  }
}

/** How the printed tally names an error answer: its code, a JSON-RPC error's code, or no body. */
function answerLabel(head: string, body: string): string {
  const jsonRpc = jsonRpcError(body);
  if (jsonRpc) return `jsonrpc ${jsonRpc.code}`;
  if (body.length === 0) return head.startsWith('HEAD ') ? '(HEAD, no body)' : '(no body)';
  return safeCode(body) ?? '(not an envelope)';
}

function safeCode(text: string): string | null {
  try {
    return (JSON.parse(text) as { error?: string }).error ?? null;
  } catch {
    return null;
  }
}
