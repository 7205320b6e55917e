// Schemas, specs and answers written by others run bounded: a catastrophic-backtracking pattern in a task
// constraint or in a business system's input schema runs in linear time (RE2) while /health keeps
// answering; a pattern RE2 cannot run is refused where it enters, with a worded, coded reason; a
// $ref bomb is refused in well under a second without eating the Hub's memory; an answer nested
// too deep for recursive code is kept as text. The Hub runs as a
// child process so its memory and its responsiveness are measured from outside.
import { createServer, type Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startDemoSystems, type DemoSystems } from '../../demo/index.js';
import { HubErrorBodySchema, ReceiptSchema, SystemSchema } from '../../src-shared/hub-api.js';
import { spawnHub, type HubChild } from './child.js';
import { demoConfig, http, newInvocationId, token } from './helpers.js';
import { favour, percentile, rssGrowth, startControlledProbe } from './probe.js';

const EVIL = '^(a|a)+$';
const EVIL_INPUT = `${'a'.repeat(27)}!`; // 20 s of backtracking on the native engine

let demo: DemoSystems;
let hub: HubChild;
let dataDir: string;
let hostile: Server;
let hostileUrl = '';
let spec: unknown = null;
let businessCalls = 0;
/** What the hostile system answers to a business call. */
let answer = '{"ok":true}';
const adminToken = `admin-${randomBytes(16).toString('hex')}`;
const desk = token('desk');

const admin = (method: string, path: string, body?: unknown) =>
  http(hub.url, method, path, { token: adminToken, body });
const agent = (method: string, path: string, body?: unknown) =>
  http(hub.url, method, path, { token: desk, body });

beforeAll(async () => {
  demo = await startDemoSystems();
  hostile = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/.well-known/bailing/tools.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spec));
        return;
      }
      businessCalls += 1;
      res.writeHead(200, { 'content-type': 'application/json' }).end(answer);
    });
  });
  await new Promise<void>((res) => hostile.listen(0, '127.0.0.1', () => res()));
  const addr = hostile.address();
  hostileUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  dataDir = mkdtempSync(join(tmpdir(), 'hub-hostile-'));
  hub = await spawnHub(dataDir, {
    ...demoConfig(demo, [{ client_id: 'desk', token: desk }]),
    admin_token: adminToken,
    // the hostile work is repeated as fast as it goes: request rates are not what is tested here
    rate_limits: { agent: null, admin: null },
  });
  favour(hub.proc.pid!);
});
afterAll(async () => {
  await hub?.kill('SIGTERM');
  await demo?.close();
  await new Promise<void>((res) => hostile.close(() => res()));
  rmSync(dataDir, { recursive: true, force: true });
});

const operation = (operationId: string, codeSchema: Record<string, unknown>) => ({
  post: {
    operationId,
    summary: operationId,
    requestBody: {
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            required: ['code'],
            properties: { code: codeSchema },
            additionalProperties: false,
          },
        },
      },
    },
    responses: { '200': { description: 'ok' } },
    'x-agent-capability': { version: 1, enabled: true, scope: 'codes.write' },
  },
});

const register = (systemId: string) =>
  admin('POST', '/admin/v1/systems', {
    system_id: systemId,
    name: systemId,
    base_url: hostileUrl,
    signing_secret: 'hostile-signing-secret',
  });

/**
 * Repeats `work` for at least `ms` while a separate process probes /health every 5 ms; asserts the
 * Hub answered throughout (p99 under 100 ms over many samples, beyond an idle control server's;
 * no probe near the 20 s a backtracking engine would block for).
 */
async function staysResponsive(work: () => Promise<void>, ms = 1_500): Promise<void> {
  const probe = await startControlledProbe(hub.url, 5);
  const end = performance.now() + ms;
  let measured: Awaited<ReturnType<typeof probe.stop>>;
  try {
    do await work();
    while (performance.now() < end);
  } finally {
    measured = await probe.stop();
  }
  const { latencies, failures, control } = measured;
  expect(failures).toBe(0);
  expect(latencies.length).toBeGreaterThan(50);
  // beyond what the machine's other work does to an idle server probed over the same interval
  expect(percentile(latencies, 99)).toBeLessThan(100 + percentile(control, 99));
  expect(Math.max(...latencies)).toBeLessThan(1_000 + Math.max(...control));
}

async function invoke(authRef: string, tool: string, args: Record<string, unknown>, taskId?: string) {
  const search = await agent('POST', '/agent/v1/tools/search', {
    query: tool,
    authorization_refs: [authRef],
    limit: 50,
  });
  const d = (search.body.declarations as Array<{ tool: string; declaration_revision: string }>).find(
    (x) => x.tool === tool,
  );
  if (!d) throw new Error(`no declaration ${tool}: ${search.text}`);
  const run = await agent('POST', '/agent/v1/runs', {
    agent_session_id: `s-${newInvocationId()}`,
    turn_id: 't',
    authorization_ref: authRef,
  });
  const r = await agent('POST', '/agent/v1/invocations', {
    invocation_id: newInvocationId(),
    run_id: run.body.run_id,
    authorization_ref: authRef,
    tool,
    declaration_revision: d.declaration_revision,
    arguments: args,
    host_call_id: 'h',
    ...(taskId ? { task_id: taskId } : {}),
  });
  expect(r.status).toBe(201);
  return ReceiptSchema.parse(r.body);
}

describe('hostile schemas', () => {
  it('a task constraint with a catastrophic pattern validates in linear time; /health keeps answering', async () => {
    const task = await agent('POST', '/agent/v1/tasks', {
      title: 'redos',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 5,
      in_flight_limit: 1,
      constraints: [
        {
          authorization_ref: 'auth-shop-a',
          tool: 'update_product_content',
          schema: { properties: { description: { type: 'string', pattern: EVIL } } },
          description: null,
        },
      ],
    });
    expect(task.status).toBe(201);
    await staysResponsive(async () => {
      for (const description of [EVIL_INPUT, `${'a'.repeat(1_900)}!`]) {
        const r = await invoke(
          'auth-shop-a',
          'update_product_content',
          { product_id: 42, description },
          task.body.task_id,
        );
        expect(r.state).toBe('not_dispatched');
        expect(r.reason_code).toBe('constraint_violation');
      }
    });
    const ok = await invoke(
      'auth-shop-a',
      'update_product_content',
      { product_id: 42, description: 'aaaa' },
      task.body.task_id,
    );
    expect(ok.state).toBe('succeeded');
  });

  it('a constraint pattern RE2 cannot run is refused at task creation with a worded reason; nothing stored', async () => {
    const before = (await agent('GET', '/agent/v1/tasks')).body.tasks.length as number;
    for (const pattern of ['^(?=a)(a|a)+$', '^(a+)\\1$', '(?<!x)a']) {
      const r = await agent('POST', '/agent/v1/tasks', {
        title: 'lookahead',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
        write_budget: 1,
        in_flight_limit: 1,
        constraints: [
          {
            authorization_ref: null,
            tool: 'update_product_content',
            schema: { properties: { description: { type: 'string', pattern } } },
            description: null,
          },
        ],
      });
      expect(r.status).toBe(400);
      const body = HubErrorBodySchema.parse(r.body);
      expect(body.error).toBe('invalid_request');
      expect(body.message).toContain('pattern_unsupported');
      expect(body.message).toContain('RE2');
      expect(body.message).toContain('/properties/description/pattern');
    }
    expect((await agent('GET', '/agent/v1/tasks')).body.tasks).toHaveLength(before);
  });

  it("a business system's catastrophic input_schema pattern runs in linear time; one RE2 cannot run is refused at registration", async () => {
    spec = {
      openapi: '3.1.0',
      info: { title: 'codes', version: '1' },
      paths: {
        '/codes': operation('check_code', { type: 'string', pattern: EVIL }),
        '/lookaround': operation('lookaround_code', { type: 'string', pattern: '^(?!admin).*$' }),
        '/keys': operation('keyed_code', {
          type: 'object',
          patternProperties: { '^(?<name>x)\\k<name>$': { type: 'string' } },
        }),
      },
    };
    const reg = await register('codes');
    expect(reg.status).toBe(201);
    const sys = SystemSchema.parse(reg.body);
    expect(sys.tool_count).toBe(1);
    const refused = sys.diagnostics.filter((d) => d.code === 'pattern_unsupported');
    expect(refused.map((d) => d.operation).sort()).toEqual(['keyed_code', 'lookaround_code']);
    expect(refused[0]?.message).toContain('RE2');

    await admin('POST', '/admin/v1/authorizations', {
      system_id: 'codes',
      account: 'codes-operator',
      on_behalf_of: 'operator@demo.local',
      authorization_ref: 'auth-codes',
    });
    await admin('POST', '/admin/v1/authorizations/auth-codes/grants', { client_id: 'desk' });
    await staysResponsive(async () => {
      for (const code of [EVIL_INPUT, `${'a'.repeat(200_000)}!`]) {
        const r = await invoke('auth-codes', 'check_code', { code });
        expect(r.state).toBe('not_dispatched');
        expect(r.reason_code).toBe('arguments_invalid');
      }
    });
    expect(businessCalls).toBe(0);
    expect((await invoke('auth-codes', 'check_code', { code: 'aaa' })).state).toBe('succeeded');
    expect(businessCalls).toBe(1);

    spec = {
      openapi: '3.1.0',
      info: { title: 'only bad', version: '1' },
      paths: { '/lookaround': operation('lookaround_code', { type: 'string', pattern: '(?=x)' }) },
    };
    const only = await register('codes-only-bad');
    expect(only.status).toBe(422);
    expect(HubErrorBodySchema.parse(only.body).error).toBe('spec_invalid');
  });

  it('a $ref bomb (depth 9, fan-out 4) is refused with spec_invalid in under a second; Hub memory grows under 100 MiB', async () => {
    const schemas: Record<string, unknown> = { s0: { type: 'string' } };
    for (let k = 1; k <= 9; k++) {
      const ref = { $ref: `#/components/schemas/s${k - 1}` };
      schemas[`s${k}`] = { type: 'object', properties: { a: ref, b: ref, c: ref, d: ref } };
    }
    spec = {
      openapi: '3.1.0',
      info: { title: 'bomb', version: '1' },
      components: { schemas },
      paths: {
        '/boom': {
          post: {
            operationId: 'boom',
            requestBody: {
              required: true,
              content: { 'application/json': { schema: { $ref: '#/components/schemas/s9' } } },
            },
            responses: { '200': { description: 'ok' } },
            'x-agent-capability': { version: 1, enabled: true, scope: 'boom' },
          },
        },
      },
    };
    const rss = rssGrowth(hub.proc.pid!);
    rss.start();
    const elapsed: number[] = [];
    await staysResponsive(async () => {
      const t0 = performance.now();
      const r = await register('bomb');
      elapsed.push(performance.now() - t0);
      expect(r.status).toBe(422);
      const body = HubErrorBodySchema.parse(r.body);
      expect(body.error).toBe('spec_invalid');
      expect(body.message).toContain('$refs are inlined');
    });
    expect(elapsed[0]).toBeLessThan(1_000);
    expect(percentile(elapsed, 50)).toBeLessThan(1_000);
    expect(rss.growth()).toBeLessThan(100 * 1024 * 1024);
    // nothing of it was kept: no tools, a coded diagnostic
    const sys = SystemSchema.parse((await admin('GET', '/admin/v1/systems/bomb')).body);
    expect(sys.tool_count).toBe(0);
    expect(sys.diagnostics[0]?.code).toBe('spec_invalid');
  });

  it('a business answer nested 100,000 deep is kept as text: the call is recorded and readable, the Hub keeps serving', async () => {
    answer = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    try {
      const r = await invoke('auth-codes', 'check_code', { code: 'aa' });
      expect(r.state).toBe('succeeded');
      expect(typeof r.result).toBe('string');
      const again = await agent('GET', `/agent/v1/invocations/${encodeURIComponent(r.invocation_id)}`);
      expect(again.status).toBe(200);
      expect(ReceiptSchema.parse(again.body).state).toBe('succeeded');
    } finally {
      answer = '{"ok":true}';
    }
    expect((await http(hub.url, 'GET', '/health')).status).toBe(200);
  });
});
