// The rate limit a business system declares per operation (ACC execution.rate_limit) is enforced in
// the Hub's dispatch transaction per (authorization_ref, tool): exactly `count` dispatches per
// window reach the system, with or without a task, on invoke and on resume of an approved call,
// also under concurrency and across a Hub restart. A hand-written signed system logs every request
// it receives; the Hub's clock is injected so the window boundary is deterministic.
import { createServer, type Server } from 'node:http';
import { randomBytes, randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptSchema, ResumeResponseSchema, TaskViewSchema } from '../../src-shared/hub-api.js';
import { verifySignature } from '../../src-shared/signing.js';
import { newInvocationId, startEnv, type HubEnv } from './helpers.js';

const secret = randomBytes(24).toString('hex');
const received: Array<{ path: string; account: string; signed: boolean }> = [];
let server: Server;
let env: HubEnv;

const MINUTE = 60_000;
let clockMs = Date.UTC(2026, 10, 29, 12, 0, 0) + 5_000; // 5 s into a fixed 1m window
const nextWindow = () => {
  clockMs = (Math.floor(clockMs / MINUTE) + 1) * MINUTE + 1_000;
};

const body = (props: Record<string, unknown>) => ({
  required: true,
  content: {
    'application/json': {
      schema: {
        type: 'object',
        required: Object.keys(props),
        properties: props,
        additionalProperties: false,
      },
    },
  },
});
const spec = {
  openapi: '3.1.0',
  info: { title: 'notes', version: '1' },
  paths: {
    '/notes': {
      post: {
        operationId: 'add_note',
        summary: 'Add a note',
        requestBody: body({ text: { type: 'string' } }),
        responses: { '200': { description: 'ok' } },
        'x-agent-capability': {
          version: 1,
          enabled: true,
          scope: 'notes.write',
          execution: { readonly: false, idempotent: true, rate_limit: { count: 5, window: '1m' } },
          outcome: { side_effect: 'write' },
        },
      },
    },
    '/notes/publish': {
      post: {
        operationId: 'publish_note',
        summary: 'Publish a note',
        requestBody: body({ text: { type: 'string' } }),
        responses: { '200': { description: 'ok' } },
        'x-agent-capability': {
          version: 1,
          enabled: true,
          scope: 'notes.publish',
          approval: { required: true, prompt: 'Publish a note?' },
          execution: { readonly: false, idempotent: true, rate_limit: { count: 1, window: '1m' } },
          outcome: { side_effect: 'external' },
        },
      },
    },
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      if (req.url === '/.well-known/bailing/tools.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spec));
        return;
      }
      const h = (n: string) => String(req.headers[n] ?? '');
      const check = verifySignature(
        {
          secret,
          timestamp: Number(h('x-bailing-timestamp')),
          method: req.method ?? '',
          pathWithQuery: req.url ?? '',
          body: text,
          onBehalfOf: h('x-bailing-on-behalf-of'),
          jobId: h('x-bailing-job-id'),
          presented: h('x-bailing-signature'),
        },
        Math.floor(Date.now() / 1000),
      );
      received.push({ path: req.url ?? '', account: h('x-bailing-on-behalf-of'), signed: check.ok });
      res
        .writeHead(check.ok ? 200 : 401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ ok: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  env = await startEnv({ now: () => new Date(clockMs) });
  const reg = await env.admin('POST', '/admin/v1/systems', {
    system_id: 'notes',
    name: 'Notes',
    base_url: baseUrl,
    signing_secret: secret,
  });
  expect(reg.status).toBe(201);
});
afterAll(async () => {
  await env.close();
  await new Promise((r) => server.close(r));
});

/** A fresh account on the notes system (the limit is per authorization and tool). */
async function account(): Promise<string> {
  const ref = `auth-notes-${randomUUID().slice(0, 8)}`;
  const a = await env.admin('POST', '/admin/v1/authorizations', {
    system_id: 'notes',
    account: ref,
    on_behalf_of: `${ref}@x`,
    authorization_ref: ref,
  });
  expect(a.status).toBe(201);
  expect(
    (await env.admin('POST', `/admin/v1/authorizations/${ref}/grants`, { client_id: 'desk' })).status,
  ).toBeLessThan(300);
  return ref;
}
const sentFor = (ref: string, path = '/notes') =>
  received.filter((r) => r.account === `${ref}@x` && r.path === path && r.signed).length;
const addNote = async (ref: string, extra: { taskId?: string; sessionId?: string } = {}) =>
  ReceiptSchema.parse(
    (await env.invoke({ authRef: ref, tool: 'add_note', args: { text: randomUUID() }, ...extra })).body,
  );

describe('operation rate limits declared by the business system', () => {
  it('exactly `count` dispatches per window reach the system; the next is rate_limited with retry_after_ms; the next window lets it through', async () => {
    const ref = await account();
    const other = await account();
    for (let i = 0; i < 5; i++) expect((await addNote(ref)).state).toBe('succeeded');
    expect(sentFor(ref)).toBe(5);

    const refused = await addNote(ref);
    expect(refused).toMatchObject({ state: 'not_dispatched', dispatch: 'none', reason_code: 'rate_limited' });
    const windowEnd = (Math.floor(clockMs / MINUTE) + 1) * MINUTE;
    expect(refused.retry_after_ms).toBe(windowEnd - clockMs);
    expect(sentFor(ref)).toBe(5);

    // another account on the same system has its own window
    expect((await addNote(other)).state).toBe('succeeded');
    expect(sentFor(other)).toBe(1);

    nextWindow();
    expect((await addNote(ref)).state).toBe('succeeded');
    expect(sentFor(ref)).toBe(6);
  });

  it('30 concurrent invokes against 5 per minute: exactly 5 reach the system, 25 are refused and sent nothing', async () => {
    const ref = await account();
    const d = await env.declaration(ref, 'add_note');
    const runs = await Promise.all([0, 1, 2].map(() => env.run(ref)));
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) =>
        env.agent('POST', '/agent/v1/invocations', {
          invocation_id: newInvocationId(),
          run_id: runs[i % runs.length],
          authorization_ref: ref,
          tool: 'add_note',
          declaration_revision: d.declaration_revision,
          arguments: { text: `c${i}` },
          host_call_id: `c${i}`,
        }),
      ),
    );
    const states = results.map((r) => ReceiptSchema.parse(r.body));
    expect(states.filter((s) => s.state === 'succeeded')).toHaveLength(5);
    const refused = states.filter((s) => s.state === 'not_dispatched');
    expect(refused).toHaveLength(25);
    expect(
      refused.every(
        (s) => s.reason_code === 'rate_limited' && (s.retry_after_ms ?? 0) > 0 && s.dispatch === 'none',
      ),
    ).toBe(true);
    expect(sentFor(ref)).toBe(5);
  });

  it('a task-bound call refused by the operation limit spends no task budget and takes no permit', async () => {
    const ref = await account();
    const t = await env.agent('POST', '/agent/v1/tasks', {
      title: 'notes',
      authorizations: [{ authorization_ref: ref, tools: ['add_note'] }],
      write_budget: 20,
      in_flight_limit: 5,
    });
    expect(t.status).toBe(201);
    const taskId = t.body.task_id as string;
    for (let i = 0; i < 5; i++) expect((await addNote(ref, { taskId })).state).toBe('succeeded');
    const refused = await addNote(ref, { taskId });
    expect(refused).toMatchObject({ state: 'not_dispatched', reason_code: 'rate_limited', task_id: taskId });
    const view = TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${taskId}`)).body);
    expect(view.writes_used).toBe(5);
    expect(view.permits_granted).toBe(5);
    expect(view.in_flight).toBe(0);
    expect(sentFor(ref)).toBe(5);
  });

  it('resume of an approved call over the limit stays approved (rate_limited, nothing sent) and runs once the window opens', async () => {
    const ref = await account();
    const approveAndResume = async () => {
      const r = ReceiptSchema.parse(
        (await env.invoke({ authRef: ref, tool: 'publish_note', args: { text: randomUUID() } })).body,
      );
      expect(r.state).toBe('awaiting_approval');
      const id = r.approval?.approval_id ?? '';
      const dec = await env.admin('POST', `/admin/v1/approvals/${id}/decision`, {
        decision_id: `d-${id}`,
        decision: 'approve',
      });
      expect(dec.status).toBe(200);
      return {
        id: r.invocation_id,
        resumed: ResumeResponseSchema.parse(
          (await env.agent('POST', `/agent/v1/invocations/${r.invocation_id}/resume`)).body,
        ),
      };
    };
    const first = await approveAndResume();
    expect(first.resumed).toMatchObject({ action: 'dispatched', receipt: { state: 'succeeded' } });
    const second = await approveAndResume();
    expect(second.resumed.action).toBe('refused');
    expect(second.resumed.receipt).toMatchObject({
      state: 'approved',
      dispatch: 'none',
      reason_code: 'rate_limited',
    });
    expect(second.resumed.receipt.retry_after_ms).toBeGreaterThan(0);
    expect(sentFor(ref, '/notes/publish')).toBe(1);

    nextWindow();
    const again = ResumeResponseSchema.parse(
      (await env.agent('POST', `/agent/v1/invocations/${second.id}/resume`)).body,
    );
    expect(again).toMatchObject({
      action: 'dispatched',
      receipt: { state: 'succeeded', reason_code: null, retry_after_ms: null },
    });
    expect(sentFor(ref, '/notes/publish')).toBe(2);
  });

  it('the window count is durable: a Hub restart does not refill it', async () => {
    const ref = await account();
    for (let i = 0; i < 5; i++) expect((await addNote(ref)).state).toBe('succeeded');
    await env.restart();
    const refused = await addNote(ref);
    expect(refused).toMatchObject({ state: 'not_dispatched', reason_code: 'rate_limited' });
    expect(sentFor(ref)).toBe(5);
    const rows = env.sql<{ n: number }>(
      'SELECT COUNT(*) AS n FROM operation_dispatches WHERE authorization_ref = ?',
      ref,
    );
    expect(rows[0]?.n).toBe(5);
  });
});
