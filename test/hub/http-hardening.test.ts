// Requests no honest client sends: bodies that are null, arrays, scalars, 100,000 levels deep or
// prototype-poisoned; impossible dates; unknown query parameters; malformed HTTP that never reaches
// a route (bad percent-encoding, over-long parameters, URLs and headers, lying Content-Length, slow
// requests); oversized bodies. Every answer is the documented envelope, nothing is stored or sent.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { HUB_ERROR_CODES, HubErrorBodySchema } from '../../src-shared/hub-api.js';
import { http, newInvocationId, startEnv, type HubEnv } from './helpers.js';
import { rawExchange } from './raw-http.js';
import { settledSnapshot } from './snapshot.js';

let env: HubEnv;
let taskId: string;
let runId: string;
let before: string;
beforeAll(async () => {
  env = await startEnv({ settings: { requestTimeoutMs: 1_500, headersTimeoutMs: 1_000 } });
  taskId = (
    await env.agent('POST', '/agent/v1/tasks', {
      title: 'hardening',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 3,
      in_flight_limit: 1,
    })
  ).body.task_id as string;
  runId = await env.run('auth-shop-a');
});
afterAll(async () => {
  await env.close();
});
beforeEach(async () => {
  before = await settledSnapshot(env);
});
const unchanged = async () => expect(await settledSnapshot(env)).toBe(before);

function expectEnvelope(status: number, body: unknown, wantStatus: number, code: string) {
  expect(status).toBe(wantStatus);
  const parsed = HubErrorBodySchema.parse(typeof body === 'string' ? JSON.parse(body) : body);
  expect(parsed.error).toBe(code);
  expect(HUB_ERROR_CODES as readonly string[]).toContain(parsed.error);
}

const raw = (method: string, path: string, text: string, tok = env.desk) =>
  http(env.hub.url, method, path, { token: tok, raw: text });

describe('strict bodies', () => {
  it('null, an array or a scalar where an object (or nothing) is expected: 400, and the action does not run', async () => {
    const routes: Array<[string, string, string?]> = [
      ['POST', `/agent/v1/tasks/${taskId}/pause`],
      ['POST', `/agent/v1/runs/${runId}/end`],
      ['POST', `/agent/v1/invocations/${newInvocationId()}/resume`],
      ['POST', '/agent/v1/invocations'],
      ['POST', '/agent/v1/tasks'],
      ['POST', '/agent/v1/tools/search'],
      ['POST', '/admin/v1/authorizations/auth-shop-b/revoke', env.adminToken],
      ['POST', '/admin/v1/authorizations/auth-shop-b/rebind', env.adminToken],
      ['POST', `/admin/v1/tasks/${taskId}/cancel`, env.adminToken],
      ['POST', '/admin/v1/clients', env.adminToken],
    ];
    for (const [method, path, tok] of routes) {
      for (const text of ['null', '[]', '[{}]', '0', '"x"', 'true']) {
        const r = await raw(method, path, text, tok);
        expectEnvelope(r.status, r.body, 400, 'invalid_request');
      }
    }
    await unchanged();
    // the empty-body actions still work with no body and with {}
    expect((await raw('POST', `/agent/v1/tasks/${taskId}/pause`, '')).status).toBe(200);
    expect((await raw('POST', `/agent/v1/tasks/${taskId}/continue`, '{}')).status).toBe(200);
  });

  it('bodies nested 3,000 and 100,000 deep: 400 before anything recursive runs; nothing stored', async () => {
    const d = await env.declaration('auth-shop-a', 'update_product_content');
    for (const depth of [65, 3_000, 100_000]) {
      for (const nest of ['[', '{"a":']) {
        const close = nest === '[' ? ']' : '}';
        const args = `${nest.repeat(depth)}1${close.repeat(depth)}`;
        const text = `{"invocation_id":"${newInvocationId()}","run_id":"${runId}","authorization_ref":"auth-shop-a","tool":"update_product_content","declaration_revision":"${d.declaration_revision}","arguments":{"product_id":42,"description":${args}},"host_call_id":"h"}`;
        const r = await raw('POST', '/agent/v1/invocations', text);
        expectEnvelope(r.status, r.body, 400, 'invalid_request');
        expect(r.body.message).toContain('deeper than 64');
      }
    }
    // at the limit it is read (and refused by the schema, as a call, not as a crash)
    const ok = await raw(
      'POST',
      '/agent/v1/tools/search',
      `{"query":"x","authorization_refs":${'['.repeat(62)}${']'.repeat(62)}}`,
    );
    expectEnvelope(ok.status, ok.body, 400, 'invalid_request');
    await unchanged();
  });

  it('__proto__ and constructor.prototype keys: 400', async () => {
    for (const text of [
      '{"query":"x","__proto__":{"admin":true}}',
      '{"query":"x","constructor":{"prototype":{"admin":true}}}',
    ]) {
      const r = await raw('POST', '/agent/v1/tools/search', text);
      expectEnvelope(r.status, r.body, 400, 'invalid_request');
    }
    await unchanged();
  });

  it('dates must exist on the calendar', async () => {
    for (const expires_at of [
      '2026-02-30T00:00:00Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01',
    ]) {
      const r = await env.agent('POST', '/agent/v1/tasks', {
        title: 'bad date',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
        write_budget: 1,
        in_flight_limit: 1,
        expires_at,
      });
      expectEnvelope(r.status, r.body, 400, 'invalid_request');
    }
    await unchanged();
    const leap = await env.agent('POST', '/agent/v1/tasks', {
      title: 'leap day',
      authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
      write_budget: 1,
      in_flight_limit: 1,
      expires_at: '2028-02-29T12:00:00+08:00',
    });
    expect(leap.status).toBe(201);
  });

  it('unknown, repeated and bracketed query parameters: 400 invalid_request', async () => {
    for (const [path, tok] of [
      ['/agent/v1/tasks?zz=1', env.desk],
      [`/agent/v1/tasks/${taskId}?state=paused`, env.desk],
      ['/agent/v1/authorizations?x', env.desk],
      ['/admin/v1/approvals?state[]=pending', env.adminToken],
      ['/admin/v1/approvals?state=pending&state=approved', env.adminToken],
      ['/admin/v1/audit?limit=1&zz=1', env.adminToken],
      ['/health?verbose=1', undefined],
    ] as const) {
      const r = await http(env.hub.url, 'GET', path, { token: tok });
      expectEnvelope(r.status, r.body, 400, 'invalid_request');
    }
    const ok = await http(env.hub.url, 'GET', '/admin/v1/approvals?state=pending', { token: env.adminToken });
    expect(ok.status).toBe(200);
    await unchanged();
  });
});

describe('framework errors in the envelope', () => {
  const head = (requestLine: string, extra = '') =>
    `${requestLine}\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${env.desk}\r\n${extra}\r\n`;

  it('bad percent-encoding, over-long parameters, URLs and headers', async () => {
    let r = await rawExchange(env.hub.url, head('GET /agent/v1/invocations/abc%zzdef12 HTTP/1.1'));
    expectEnvelope(r.status, r.body, 400, 'invalid_request');
    r = await rawExchange(env.hub.url, head(`GET /agent/v1/invocations/${'x'.repeat(600)} HTTP/1.1`));
    expectEnvelope(r.status, r.body, 414, 'uri_too_long');
    r = await rawExchange(env.hub.url, head(`GET /agent/v1/tasks?${'q'.repeat(20_000)}=1 HTTP/1.1`));
    expectEnvelope(r.status, r.body, 431, 'headers_too_large');
    r = await rawExchange(
      env.hub.url,
      head('GET /agent/v1/tasks HTTP/1.1', `X-Big: ${'h'.repeat(20_000)}\r\n`),
    );
    expectEnvelope(r.status, r.body, 431, 'headers_too_large');
    const many = Array.from({ length: 3_000 }, (_, i) => `X-H${i}: v\r\n`).join('');
    r = await rawExchange(env.hub.url, head('GET /agent/v1/tasks HTTP/1.1', many));
    expectEnvelope(r.status, r.body, 431, 'headers_too_large');
    await unchanged();
  });

  it('malformed, conflicting and lying Content-Length', async () => {
    const post = (extra: string, body: string) =>
      rawExchange(
        env.hub.url,
        head(`POST /agent/v1/tasks/${taskId}/pause HTTP/1.1`, `Content-Type: application/json\r\n${extra}`),
        body,
      );
    let r = await post('Content-Length: abc\r\n', '{}');
    expectEnvelope(r.status, r.body, 400, 'invalid_request');
    r = await post('Content-Length: 2\r\nContent-Length: 3\r\n', '{}');
    expectEnvelope(r.status, r.body, 400, 'invalid_request');
    r = await post('Content-Length: 2\r\nTransfer-Encoding: chunked\r\n', '{}');
    expectEnvelope(r.status, r.body, 400, 'invalid_request');
    // shorter than the body: the request is what Content-Length says, the rest is refused as garbage
    r = await post('Content-Length: 1\r\n', 'nul');
    expectEnvelope(r.status, r.body, 400, 'invalid_json');
    // longer than the body: the Hub waits for the rest until the request timeout
    r = await post('Content-Length: 100\r\n', '{}');
    expectEnvelope(r.status, r.body, 408, 'request_timeout');
    await unchanged();
  });

  it('a chunked body the parser refuses after the request reached a route: answered at once, not held open', async () => {
    const post = (body: string) =>
      rawExchange(
        env.hub.url,
        head(
          `POST /agent/v1/tasks/${taskId}/pause HTTP/1.1`,
          'Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n',
        ),
        body,
        5_000,
      );
    for (const body of ['zz\r\n{}\r\n0\r\n\r\n', '2\r\n{}XX0\r\n\r\n', '2;\x01\r\n{}\r\n0\r\n\r\n']) {
      const r = await post(body);
      expect(r.end).toBe('closed');
      expectEnvelope(r.status, r.body, 400, 'invalid_request');
    }
    await unchanged();
  });

  it('a client that never finishes its headers: 408 request_timeout', async () => {
    const r = await rawExchange(env.hub.url, 'GET /agent/v1/tasks HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    expectEnvelope(r.status, r.body, 408, 'request_timeout');
  });

  it('oversized bodies (5 MB, 50 MB) get a readable 413 every time, with or without Connection: close', async () => {
    for (const size of [5_000_000, 50_000_000]) {
      const body = Buffer.alloc(size, 0x61);
      for (let i = 0; i < 13; i++) {
        for (const extra of ['', 'Connection: close\r\n']) {
          const r = await rawExchange(
            env.hub.url,
            head(
              'POST /agent/v1/invocations HTTP/1.1',
              `Content-Type: application/json\r\nContent-Length: ${size}\r\n${extra}`,
            ),
            body,
            30_000,
            true,
          );
          expectEnvelope(r.status, r.body, 413, 'body_too_large');
        }
      }
    }
    await unchanged();
  });
});
