// A small hand-written business system (a real HTTP server) for what the demo systems do not
// exercise: audit-sensitive operations, spec diagnostics, an invalid refresh keeping the old spec.
import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DeclarationSchema, SystemSchema } from '../../src-shared/hub-api.js';
import { verifySignature } from '../../src-shared/signing.js';
import { newInvocationId, startEnv, type HubEnv } from './helpers.js';

const secret = randomBytes(24).toString('hex');
let spec: unknown;
let server: Server;
let baseUrl = '';
const received: Array<{ url: string; body: string; signed: boolean }> = [];

const validSpec = {
  openapi: '3.1.0',
  info: { title: 'vault', version: '1' },
  paths: {
    '/secrets': {
      post: {
        operationId: 'store_secret',
        summary: 'Store a customer secret',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                type: 'object',
                required: ['name', 'value'],
                properties: { name: { type: 'string' }, value: { type: 'string' } },
                additionalProperties: false,
              },
            },
          },
        },
        responses: { '200': { description: 'ok' } },
        'x-agent-capability': {
          version: 1,
          enabled: true,
          scope: 'vault.write',
          audit: { sensitive: true },
          outcome: { side_effect: 'write' },
        },
      },
    },
    '/broken': {
      get: {
        summary: 'no operationId',
        responses: { '200': { description: 'ok' } },
        'x-agent-capability': { version: 1, enabled: true, scope: 's' },
      },
    },
  },
};

let env: HubEnv;
beforeAll(async () => {
  spec = validSpec;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
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
          body,
          onBehalfOf: h('x-bailing-on-behalf-of'),
          jobId: h('x-bailing-job-id'),
          presented: h('x-bailing-signature'),
        },
        Math.floor(Date.now() / 1000),
      );
      received.push({ url: req.url ?? '', body, signed: check.ok });
      res
        .writeHead(check.ok ? 200 : 401, { 'content-type': 'application/json' })
        .end(JSON.stringify({ stored: true }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const addr = server.address();
  baseUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
  env = await startEnv();
  const reg = await env.admin('POST', '/admin/v1/systems', {
    system_id: 'vault',
    name: 'Vault',
    base_url: baseUrl,
    signing_secret: secret,
  });
  expect(reg.status).toBe(201);
  await env.admin('POST', '/admin/v1/authorizations', {
    system_id: 'vault',
    account: 'acct',
    on_behalf_of: 'op@x',
    authorization_ref: 'auth-vault',
  });
  await env.admin('POST', '/admin/v1/authorizations/auth-vault/grants', { client_id: 'desk' });
});
afterAll(async () => {
  await env.close();
  await new Promise((r) => server.close(r));
});

describe('a third-party system', () => {
  it('registers with coded diagnostics for operations it cannot compile', async () => {
    const s = SystemSchema.parse((await env.admin('GET', '/admin/v1/systems/vault')).body);
    expect(s.tool_count).toBe(1);
    expect(s.diagnostics.map((d) => d.code)).toContain('operation_id_missing');
    expect(JSON.stringify(s)).not.toContain(secret);
  });

  it('audit-sensitive arguments are sent signed but never written to the audit trail or approval preview', async () => {
    const d = DeclarationSchema.parse(await env.declaration('auth-vault', 'store_secret'));
    expect(d.audit_sensitive).toBe(true);
    const r = await env.agent('POST', '/agent/v1/invocations', {
      invocation_id: newInvocationId(),
      run_id: await env.run('auth-vault'),
      authorization_ref: 'auth-vault',
      tool: 'store_secret',
      declaration_revision: d.declaration_revision,
      arguments: { name: 'door', value: 'hunter2-very-private' },
      host_call_id: 'h',
    });
    expect(r.body.state).toBe('succeeded');
    expect(received.at(-1)).toMatchObject({ url: '/secrets', signed: true });
    expect(received.at(-1)?.body).toContain('hunter2-very-private');
    const audit = await env.admin('GET', `/admin/v1/audit?invocation_id=${r.body.invocation_id}`);
    expect(audit.body.entries.length).toBeGreaterThan(0);
    expect(JSON.stringify(audit.body)).not.toContain('hunter2');
    expect(audit.body.entries[0].detail.arguments_redacted).toBe(true);
  });

  it('a refresh that yields an invalid spec keeps the previous declarations (spec_invalid)', async () => {
    const before = await env.declaration('auth-vault', 'store_secret');
    spec = { not: 'openapi' };
    const r = await env.admin('POST', '/admin/v1/systems/vault/refresh');
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('spec_invalid');
    const after = await env.declaration('auth-vault', 'store_secret');
    expect(after.declaration_revision).toBe(before.declaration_revision);
    spec = validSpec;
  });
});
