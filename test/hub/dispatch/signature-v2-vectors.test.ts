/**
 * Signature v2 test vectors, the same as published in docs/business-systems.md ("Signature v2"),
 * computed independently with Python's hmac; and the docs' plain-Node verifier, taken from the docs
 * file itself and run against the Hub's own headers and each replay trick.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { signedHeaders } from '../../../src-hub/dispatch/sign.js';
import {
  canonicalV2,
  computeSignatureV2,
  newNonce,
  type SignatureV2Fields,
} from '../../../src-shared/signing-v2.js';

const SECRET = 'bailing-test-vector-secret-0001';
const NONCE = '5f0c3a9e1b7d4c2a8e6f0b1d3c5a7e9f';
const PATH = '/api/products/42/content?tag=%E6%96%B0%E5%93%81&q=a+b';
const BODY = '{"description":"新款 — 春季","price":128.5}';

const base: SignatureV2Fields = {
  timestamp: 1782912000,
  nonce: NONCE,
  audience: 'erp',
  method: 'PATCH',
  pathWithQuery: PATH,
  body: BODY,
  onBehalfOf: 'ops@erp.example.com',
  jobId: 'run_7f3a',
  idempotencyKey: 'inv_vector_0001',
};

const VECTORS: Array<{ name: string; fields: SignatureV2Fields; canonical: string; signature: string }> = [
  {
    name: 'signed_path operation',
    fields: base,
    canonical:
      '2:v2\n10:1782912000\n32:5f0c3a9e1b7d4c2a8e6f0b1d3c5a7e9f\n3:erp\n5:PATCH\n53:/api/products/42/content?tag=%E6%96%B0%E5%93%81&q=a+b\n64:2789d2b0ebb7434352a9d2d817ccd59dbf08396c4c36972c0e9ccc95103715ba\n19:ops@erp.example.com\n8:run_7f3a\n15:inv_vector_0001\n',
    signature: 'v2=5908b4edeb4dd40c9923dc8f3ee21e976f17fe46bad1775fd921ff2e062a07aa',
  },
  {
    name: 'signed_path full',
    fields: { ...base, pathWithQuery: `/openapi${PATH}` },
    canonical:
      '2:v2\n10:1782912000\n32:5f0c3a9e1b7d4c2a8e6f0b1d3c5a7e9f\n3:erp\n5:PATCH\n61:/openapi/api/products/42/content?tag=%E6%96%B0%E5%93%81&q=a+b\n64:2789d2b0ebb7434352a9d2d817ccd59dbf08396c4c36972c0e9ccc95103715ba\n19:ops@erp.example.com\n8:run_7f3a\n15:inv_vector_0001\n',
    signature: 'v2=588c64d82f8e359d917580bcbff8898515c6fdbe21458a52f716fe13d7890bd0',
  },
  {
    name: 'spec GET (empty body, subject, job id and key)',
    fields: {
      ...base,
      method: 'GET',
      pathWithQuery: '/openapi/.well-known/bailing/tools.json',
      body: '',
      onBehalfOf: '',
      jobId: '',
      idempotencyKey: '',
    },
    canonical:
      '2:v2\n10:1782912000\n32:5f0c3a9e1b7d4c2a8e6f0b1d3c5a7e9f\n3:erp\n3:GET\n39:/openapi/.well-known/bailing/tools.json\n64:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\n0:\n0:\n0:\n',
    signature: 'v2=8dffb5402f3d492745d71f3844845386506c4faf38f845b392fe424baee57f6d',
  },
  {
    name: 'on-behalf-of ops@corp.example, job run_x',
    fields: { ...base, onBehalfOf: 'ops@corp.example', jobId: 'run_x' },
    canonical:
      '2:v2\n10:1782912000\n32:5f0c3a9e1b7d4c2a8e6f0b1d3c5a7e9f\n3:erp\n5:PATCH\n53:/api/products/42/content?tag=%E6%96%B0%E5%93%81&q=a+b\n64:2789d2b0ebb7434352a9d2d817ccd59dbf08396c4c36972c0e9ccc95103715ba\n16:ops@corp.example\n5:run_x\n15:inv_vector_0001\n',
    signature: 'v2=d4fb5b332a5bcff11139b0ba463228a1f7d26726404b0c42193a405a6e13eb14',
  },
  {
    name: 'the boundary moved: ops@corp, example.run_x (v1 signs both alike)',
    fields: { ...base, onBehalfOf: 'ops@corp', jobId: 'example.run_x' },
    canonical:
      '2:v2\n10:1782912000\n32:5f0c3a9e1b7d4c2a8e6f0b1d3c5a7e9f\n3:erp\n5:PATCH\n53:/api/products/42/content?tag=%E6%96%B0%E5%93%81&q=a+b\n64:2789d2b0ebb7434352a9d2d817ccd59dbf08396c4c36972c0e9ccc95103715ba\n8:ops@corp\n13:example.run_x\n15:inv_vector_0001\n',
    signature: 'v2=a883db9166d24c600dab22adc810dabaa7a064313423ba361434e6269e76f70b',
  },
];

describe('signature v2 nonces', () => {
  it('are 32 lowercase hex digits and never repeat, also across refills of the random pool', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2_000; i++) {
      const n = newNonce();
      expect(n).toMatch(/^[0-9a-f]{32}$/);
      seen.add(n);
    }
    expect(seen.size).toBe(2_000);
  });
});

describe('signature v2 test vectors', () => {
  for (const v of VECTORS)
    it(v.name, () => {
      expect(canonicalV2(v.fields)).toBe(v.canonical);
      expect(computeSignatureV2(SECRET, v.fields)).toBe(v.signature);
    });

  it('every vector is in docs/business-systems.md', () => {
    const docs = readFileSync(resolve(import.meta.dirname, '../../../docs/business-systems.md'), 'utf8');
    for (const v of VECTORS) expect(docs).toContain(v.signature);
    expect(docs).toContain(NONCE);
  });

  it("the Hub's signed header set carries v2 beside v1, over the same timestamp", () => {
    const h = signedHeaders({
      secret: SECRET,
      audience: 'erp',
      method: 'PATCH',
      pathWithQuery: PATH,
      body: BODY,
      onBehalfOf: 'ops@erp.example.com',
      jobId: 'run_7f3a',
      idempotencyKey: 'inv_vector_0001',
      nowSeconds: 1782912000,
      nonce: NONCE,
    });
    expect(h).toMatchObject({
      'x-bailing-timestamp': '1782912000',
      'x-bailing-v2-timestamp': '1782912000',
      'x-bailing-v2-nonce': NONCE,
      'x-bailing-v2-audience': 'erp',
      'x-bailing-v2-signature': VECTORS[0]!.signature,
      'x-bailing-idempotency-key': 'inv_vector_0001',
    });
  });
});

describe("the docs' plain-Node verifier", () => {
  const dir = mkdtempSync(join(tmpdir(), 'bailing-v2-verifier-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  async function docsVerifier(): Promise<{
    verifyV2(input: Record<string, unknown>): string;
  }> {
    const docs = readFileSync(resolve(import.meta.dirname, '../../../docs/business-systems.md'), 'utf8');
    const start = docs.indexOf('```js verify-v2.mjs\n');
    expect(start).toBeGreaterThan(0);
    const code = docs.slice(start + '```js verify-v2.mjs\n'.length, docs.indexOf('```', start + 10));
    expect(code.trim().split('\n').length).toBeLessThanOrEqual(30);
    const file = join(dir, `verify-v2-${Math.random().toString(36).slice(2)}.mjs`);
    writeFileSync(file, code);
    return (await import(pathToFileURL(file).href)) as { verifyV2(input: Record<string, unknown>): string };
  }

  it('accepts what the Hub sends once, and refuses each replay trick', async () => {
    const { verifyV2 } = await docsVerifier();
    const now = Math.floor(Date.now() / 1000);
    const headers = signedHeaders({
      secret: SECRET,
      audience: 'erp',
      method: 'PATCH',
      pathWithQuery: PATH,
      body: BODY,
      onBehalfOf: 'ops@corp.example',
      jobId: 'run_x',
      idempotencyKey: 'inv_docs_0001',
      nowSeconds: now,
    });
    const check = (h: Record<string, string>, systemId = 'erp', at = now) =>
      verifyV2({
        secret: SECRET,
        systemId,
        method: 'PATCH',
        pathWithQuery: PATH,
        rawBody: Buffer.from(BODY, 'utf8'),
        headers: h,
        now: at,
      });
    expect(check({ ...headers, 'x-bailing-idempotency-key': 'inv_docs_0002' })).toBe('signature_invalid');
    expect(
      check({ ...headers, 'x-bailing-on-behalf-of': 'ops@corp', 'x-bailing-job-id': 'example.run_x' }),
    ).toBe('signature_invalid');
    expect(check(headers, 'shop-a')).toBe('audience_mismatch');
    expect(check(headers, 'erp', now + 300)).toBe('timestamp_expired');
    expect(check(headers)).toBe('ok');
    expect(check(headers)).toBe('nonce_reused');
    const { 'x-bailing-v2-signature': _dropped, ...v1Only } = headers;
    expect(check(v1Only)).toBe('signature_missing');
  });
});
