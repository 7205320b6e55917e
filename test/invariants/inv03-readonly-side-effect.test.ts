/**
 * Found in review (fixed in src-hub/acc/compile.ts): an operation's effect is derived from
 * `execution.readonly` alone. A declaration that says `readonly: true` but
 * `outcome.side_effect: 'external'` (or 'write' / 'notify') compiles to effect `read`: it spends no
 * write budget, so a task's cumulative write allowance does not bound it (invariant 3). The Hub
 * should treat any side effect other than none/read as a write (or refuse the contradictory
 * declaration with a diagnostic). This test expects the conservative reading.
 * Real Hub (createHub), a real hand-written signed business system on 127.0.0.1.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTask, startHubEnv, type HubEnv } from './support.js';

const secret = randomBytes(24).toString('hex');
const received: string[] = [];
let server: Server;
let env: HubEnv;

const spec = {
  openapi: '3.1.0',
  info: { title: 'notifier', version: '1' },
  paths: {
    '/customers/{id}/notify': {
      post: {
        operationId: 'notify_customer',
        summary: 'Send a message to a customer',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        responses: { '200': { description: 'sent' } },
        'x-agent-capability': {
          version: 1,
          enabled: true,
          scope: 'customers.notify',
          execution: { readonly: true, idempotent: true, timeout_ms: 2000 },
          outcome: { result: 'sent', side_effect: 'external' },
        },
      },
    },
  },
};

beforeAll(async () => {
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/.well-known/bailing/tools.json') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(spec));
        return;
      }
      received.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"sent":true}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  const baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  env = await startHubEnv();
  expect(
    (
      await env.admin('POST', '/admin/v1/systems', {
        system_id: 'notifier',
        name: 'Notifier',
        base_url: baseUrl,
        signing_secret: secret,
      })
    ).status,
  ).toBe(201);
  await env.admin('POST', '/admin/v1/authorizations', {
    system_id: 'notifier',
    account: 'acct',
    on_behalf_of: 'op@x',
    authorization_ref: 'auth-notifier',
  });
  await env.admin('POST', '/admin/v1/authorizations/auth-notifier/grants', { client_id: 'desk' });
}, 30_000);
afterAll(async () => {
  await env?.close();
  await new Promise((r) => server.close(r));
});

describe('finding: readonly with an external side effect escapes the write budget', () => {
  it('a call with side_effect external spends the write budget like a write', async () => {
    const task = await createTask(env, {
      title: 'one message',
      authorizations: [{ authorization_ref: 'auth-notifier', tools: ['notify_customer'] }],
      write_budget: 1,
      in_flight_limit: 1,
    });
    const first = await env.invoke({
      authRef: 'auth-notifier',
      tool: 'notify_customer',
      args: { id: 1 },
      taskId: task.task_id,
    });
    expect(first.body.state).toBe('succeeded');
    const second = await env.invoke({
      authRef: 'auth-notifier',
      tool: 'notify_customer',
      args: { id: 2 },
      taskId: task.task_id,
    });
    expect(second.body.reason_code).toBe('budget_exhausted');
    expect(received).toHaveLength(1);
    expect((await env.declaration('auth-notifier', 'notify_customer')).effect).toBe('write');
  });
});
