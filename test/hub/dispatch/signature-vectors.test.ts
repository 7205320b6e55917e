// Signature test vectors (docs/business-systems.md, "Which path is signed"): fixed secret,
// timestamp, method, a path with an encoded query under a base-URL prefix, a UTF-8 body, an
// on-behalf-of subject and a job id, with the expected `sha256=` values for both `signed_path`
// modes (computed independently, with Python's hmac module). Also: what a real send puts on the
// wire, and the freshness window's edge (exactly 300 s is refused).
import { afterEach, describe, expect, it } from 'vitest';
import { verifySignature } from '../../../src-shared/signing.js';
import {
  buildRequest,
  fetchSpec,
  sendSigned,
  signedHeaders,
  signedPathOf,
} from '../../../src-hub/dispatch/index.js';
import { rawServer, type RawServer } from './servers.js';

const VECTOR = {
  secret: 'bailing-test-vector-secret-0001',
  timestamp: 1782912000,
  baseUrl: 'https://erp.example.com/openapi',
  op: {
    method: 'PATCH',
    path_template: '/api/products/{id}/content',
    path_params: ['id'],
    query_params: ['tag', 'q'],
    body_params: ['description', 'price'],
    has_body: true,
    body_required: false,
  },
  args: { id: 42, tag: '新品', q: 'a b', description: '新款 — 春季', price: 128.5 },
  onBehalfOf: 'ops@erp.example.com',
  jobId: 'run_7f3a',
};
const EXPECTED = {
  pathWithQuery: '/api/products/42/content?tag=%E6%96%B0%E5%93%81&q=a+b',
  body: '{"description":"新款 — 春季","price":128.5}',
  bodySha256: '2789d2b0ebb7434352a9d2d817ccd59dbf08396c4c36972c0e9ccc95103715ba',
  operation: 'sha256=532b0c372919ccbe83355c54a1723b34882b274e8b3dba0112cfad06b8099334',
  full: 'sha256=e224c6becc865353c26a1a5ab78b9115d77667734a9e81608d9464007183a49e',
  spec: 'sha256=d9f62c5e7fa396b5baae7c9548ad70ec3ac371e29fd1f452c7d11e83f7a5fd47',
};

/** The v1 headers of a signed set (v2's are beside them: signature-v2.test.ts). */
const v1Only = (h: Record<string, string>) =>
  Object.fromEntries(Object.entries(h).filter(([k]) => !k.startsWith('x-bailing-v2-')));

describe('v1 signature test vectors', () => {
  const request = buildRequest(VECTOR.op, VECTOR.args);
  const sign = (mode: 'operation' | 'full') =>
    signedHeaders({
      secret: VECTOR.secret,
      audience: 'erp',
      method: request.method,
      pathWithQuery: signedPathOf(mode, new URL(VECTOR.baseUrl), request.pathWithQuery),
      body: request.body,
      onBehalfOf: VECTOR.onBehalfOf,
      jobId: VECTOR.jobId,
      idempotencyKey: 'inv_vector_0001',
      nowSeconds: VECTOR.timestamp,
    });

  it('builds the path with its encoded query and the exact UTF-8 body', () => {
    expect(request.pathWithQuery).toBe(EXPECTED.pathWithQuery);
    expect(request.body).toBe(EXPECTED.body);
  });

  it('signed_path operation signs the operation path without the base-URL prefix', () => {
    expect(signedPathOf('operation', new URL(VECTOR.baseUrl), request.pathWithQuery)).toBe(
      EXPECTED.pathWithQuery,
    );
    expect(v1Only(sign('operation'))).toEqual({
      'x-bailing-timestamp': '1782912000',
      'x-bailing-signature': EXPECTED.operation,
      'x-bailing-on-behalf-of': 'ops@erp.example.com',
      'x-bailing-job-id': 'run_7f3a',
      'x-bailing-idempotency-key': 'inv_vector_0001',
    });
  });

  it('signed_path full signs the request target as sent, prefix included', () => {
    expect(signedPathOf('full', new URL(VECTOR.baseUrl), request.pathWithQuery)).toBe(
      `/openapi${EXPECTED.pathWithQuery}`,
    );
    expect(sign('full')['x-bailing-signature']).toBe(EXPECTED.full);
  });

  it('the spec GET is signed over the path it is sent to, with empty body, subject and job id', () => {
    const h = signedHeaders({
      secret: VECTOR.secret,
      audience: 'erp',
      method: 'GET',
      pathWithQuery: '/openapi/.well-known/bailing/tools.json',
      body: '',
      onBehalfOf: '',
      jobId: '',
      idempotencyKey: null,
      nowSeconds: VECTOR.timestamp,
    });
    expect(v1Only(h)).toEqual({ 'x-bailing-timestamp': '1782912000', 'x-bailing-signature': EXPECTED.spec });
  });
});

describe('on the wire, under a base-URL prefix', () => {
  const servers: RawServer[] = [];
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
  });
  const verify = (hit: RawServer['hits'][number], path: string, onBehalfOf: string, jobId: string) =>
    verifySignature(
      {
        secret: VECTOR.secret,
        timestamp: Number(hit.headers['x-bailing-timestamp']),
        method: hit.method,
        pathWithQuery: path,
        body: hit.body,
        onBehalfOf,
        jobId,
        presented: String(hit.headers['x-bailing-signature']),
      },
      Math.floor(Date.now() / 1000),
    );

  for (const mode of ['operation', 'full'] as const) {
    it(`sends prefix + path and signs per signed_path ${mode}`, async () => {
      const s = await rawServer((_req, res) => res.end('{}'));
      servers.push(s);
      const r = await sendSigned({
        baseUrl: `${s.url}/openapi`,
        systemId: 'erp',
        allowInsecureHttp: false,
        secret: VECTOR.secret,
        request: buildRequest(VECTOR.op, VECTOR.args),
        signedPath: mode,
        onBehalfOf: VECTOR.onBehalfOf,
        jobId: VECTOR.jobId,
        idempotencyKey: 'inv_wire_00001',
        timeoutMs: 3000,
      });
      expect(r.kind).toBe('response');
      const hit = s.hits[0]!;
      expect(hit.url).toBe(`/openapi${EXPECTED.pathWithQuery}`);
      expect(hit.body).toBe(EXPECTED.body);
      const signed = mode === 'operation' ? EXPECTED.pathWithQuery : hit.url;
      const other = mode === 'operation' ? hit.url : EXPECTED.pathWithQuery;
      expect(verify(hit, signed, VECTOR.onBehalfOf, VECTOR.jobId)).toEqual({ ok: true });
      expect(verify(hit, other, VECTOR.onBehalfOf, VECTOR.jobId)).toEqual({
        ok: false,
        code: 'signature_invalid',
      });
    });
  }

  it('a signed spec GET verifies over the path as sent; an unsigned one carries no signature', async () => {
    const s = await rawServer((_req, res) => res.end('{"openapi":"3.0.0","paths":{}}'));
    servers.push(s);
    expect(
      (
        await fetchSpec({
          systemId: 'erp',
          allowInsecureHttp: false,
          baseUrl: `${s.url}/openapi`,
          secret: VECTOR.secret,
        })
      ).ok,
    ).toBe(true);
    const hit = s.hits[0]!;
    expect(hit.url).toBe('/openapi/.well-known/bailing/tools.json');
    expect(hit.headers['x-bailing-on-behalf-of']).toBeUndefined();
    expect(hit.headers['x-bailing-job-id']).toBeUndefined();
    expect(verify(hit, hit.url, '', '')).toEqual({ ok: true });
    expect(
      (
        await fetchSpec({
          systemId: 'erp',
          allowInsecureHttp: false,
          baseUrl: `${s.url}/openapi`,
          secret: null,
        })
      ).ok,
    ).toBe(true);
    expect(s.hits[1]?.headers['x-bailing-signature']).toBeUndefined();
  });
});

describe('freshness window', () => {
  const at = (skew: number) =>
    verifySignature(
      {
        secret: VECTOR.secret,
        timestamp: VECTOR.timestamp,
        method: 'PATCH',
        pathWithQuery: EXPECTED.pathWithQuery,
        body: EXPECTED.body,
        onBehalfOf: VECTOR.onBehalfOf,
        jobId: VECTOR.jobId,
        presented: EXPECTED.operation,
      },
      VECTOR.timestamp + skew,
    );
  it('accepts 299 s either way and refuses exactly 300 s either way', () => {
    expect(at(0)).toEqual({ ok: true });
    expect(at(299)).toEqual({ ok: true });
    expect(at(-299)).toEqual({ ok: true });
    expect(at(300)).toEqual({ ok: false, code: 'timestamp_expired' });
    expect(at(-300)).toEqual({ ok: false, code: 'timestamp_expired' });
  });
});
