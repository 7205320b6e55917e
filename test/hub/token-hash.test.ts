// Stored token hashes stay valid: a token's hash is sha256 over the salt, one NUL byte and the
// token, hex — the bytes every stored hash was made from — whichever way it is computed.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashesMatch, hashToken } from '../../src-hub/auth/tokens.js';
import { sha256Hex } from '../../src-shared/digest.js';

describe('token and digest hashes', () => {
  it("a token's hash is sha256(salt, NUL, token) in hex, as stored hashes were made", () => {
    const salt = 'a1'.repeat(32);
    for (const token of [
      'bdc_desk.abcdefghijklmnopqrstuvwxyz012345',
      'an admin token with spaces',
      'ünïcødé',
    ]) {
      const stored = createHash('sha256').update(salt).update('\0').update(token).digest('hex');
      expect(hashToken(salt, token)).toBe(stored);
      expect(hashesMatch(hashToken(salt, token), stored)).toBe(true);
    }
    expect(hashToken(salt, 'x')).not.toBe(hashToken(`${salt}x`, ''));
  });

  it('sha256Hex gives the hex sha256 of a text (UTF-8) and of bytes', () => {
    for (const text of ['', '{"a":1}', 'ünïcødé ✓']) {
      expect(sha256Hex(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
      const bytes = Buffer.from(text, 'utf8');
      expect(sha256Hex(bytes)).toBe(createHash('sha256').update(bytes).digest('hex'));
      expect(sha256Hex(new Uint8Array(bytes))).toBe(createHash('sha256').update(bytes).digest('hex'));
    }
  });
});
