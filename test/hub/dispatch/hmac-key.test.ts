// Signing keys are prepared once per secret: the signature is the one a string secret gives, a
// rotated secret signs with the new secret at once, and a full cache starts over without mixing keys.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hmacKey } from '../../../src-hub/dispatch/hmac-key.js';
import { signedHeaders } from '../../../src-hub/dispatch/sign.js';
import { verifySignature } from '../../../src-shared/signing.js';

const sign = (secret: string) =>
  signedHeaders({
    secret,
    audience: 'shop',
    method: 'POST',
    pathWithQuery: '/products/42/content',
    body: '{"description":"x"}',
    onBehalfOf: 'ops',
    jobId: 'run_1',
    idempotencyKey: 'inv_1',
    nowSeconds: 1_800_000_000,
    nonce: '0'.repeat(32),
  });

describe('HMAC keys made once per secret', () => {
  it('sign exactly as the secret string does, UTF-8 and empty secrets included', () => {
    for (const secret of ['s3cret-for-the-shop', 'clé-секрет-秘密', '']) {
      expect(createHmac('sha256', hmacKey(secret)).update('text').digest('hex')).toBe(
        createHmac('sha256', secret).update('text').digest('hex'),
      );
    }
  });

  it('a rotated secret signs with the new secret at once, also after the cache was cleared', () => {
    const before = sign('old-secret-0123456789');
    const after = sign('new-secret-0123456789');
    expect(after['x-bailing-signature']).not.toBe(before['x-bailing-signature']);
    expect(after['x-bailing-v2-signature']).not.toBe(before['x-bailing-v2-signature']);
    for (let i = 0; i < 600; i++) hmacKey(`filler-${i}`); // more than the cache keeps
    const again = sign('new-secret-0123456789');
    expect(again).toEqual(after);
    const check = (secret: string) =>
      verifySignature(
        {
          secret,
          timestamp: 1_800_000_000,
          method: 'POST',
          pathWithQuery: '/products/42/content',
          body: '{"description":"x"}',
          onBehalfOf: 'ops',
          jobId: 'run_1',
          presented: again['x-bailing-signature'],
        },
        1_800_000_000,
      );
    expect(check('new-secret-0123456789')).toEqual({ ok: true });
    expect(check('old-secret-0123456789')).toEqual({ ok: false, code: 'signature_invalid' });
  });
});
