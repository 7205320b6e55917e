// Invocation ids (docs/journal.md#invocation-ids): `inv_`, the creation time in ms as 12 hex digits,
// then 128 random bits. They sort by creation (the Hub's indexes keyed by them stay compact), stay
// unguessable (they are the business idempotency key), and pass every check an invocation id meets.
import { describe, expect, it } from 'vitest';
import { JournalEntryV2Schema } from '../../src-main/journal/record.js';
import { newInvocationId as deskInvocationId } from '../../src-main/runtime/invocations/index.js';
import { InvokeRequestSchema } from '../../src-shared/hub-api.js';
import {
  INVOCATION_ID_PATTERN,
  INVOCATION_ID_RANDOM_BYTES,
  newInvocationId,
} from '../../src-shared/invocation-id.js';
import { CALLS } from '../../src-shared/ipc/contract.js';

const randomPart = (id: string) => Buffer.from(id.slice('inv_'.length + 12), 'base64url');

describe('invocation ids', () => {
  it('are inv_, the creation time as 12 hex digits, then 22 base64url characters (38 in all)', () => {
    const at = Date.UTC(2026, 11, 2, 6, 0, 0, 123);
    const id = newInvocationId(at);
    expect(id).toMatch(INVOCATION_ID_PATTERN);
    expect(id).toHaveLength(38);
    expect(id.slice(4, 16)).toBe(at.toString(16).padStart(12, '0'));
    expect(parseInt(id.slice(4, 16), 16)).toBe(at);
    // the random part round-trips through base64url as exactly 16 bytes
    expect(randomPart(id)).toHaveLength(INVOCATION_ID_RANDOM_BYTES);
    expect(randomPart(id).toString('base64url')).toBe(id.slice(16));
    // the clock's edges stay fixed-width
    expect(newInvocationId(0).slice(4, 16)).toBe('000000000000');
    expect(newInvocationId(-5).slice(4, 16)).toBe('000000000000');
    expect(newInvocationId(2 ** 48 + 7).slice(4, 16)).toBe('ffffffffffff');
    expect(newInvocationId(0)).toMatch(INVOCATION_ID_PATTERN);
  });

  it('the desk runtime makes them (its default id maker is this one)', () => {
    const before = Date.now();
    const id = deskInvocationId();
    const after = Date.now();
    expect(id).toMatch(INVOCATION_ID_PATTERN);
    const ms = parseInt(id.slice(4, 16), 16);
    expect(ms).toBeGreaterThanOrEqual(before);
    expect(ms).toBeLessThanOrEqual(after);
  });

  it('sort by creation time, as text and as bytes (the order of a BINARY or C-collated index)', () => {
    const start = Date.UTC(2026, 0, 1);
    // times spread over many hex digit widths' carries, made out of order
    const times = Array.from({ length: 400 }, (_, i) => start + i * 997 + (i % 7) * 2 ** (i % 40));
    const made = times.map((t) => ({ t, id: newInvocationId(t) }));
    const shuffled = made.map((_, i) => made[(i * 7919) % made.length]!); // a permutation (7919 is prime)
    const byText = [...shuffled].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const byTime = [...made].sort((a, b) => a.t - b.t);
    expect(byText.map((m) => m.t)).toEqual(byTime.map((m) => m.t));
    const byBytes = [...shuffled].sort((a, b) => Buffer.compare(Buffer.from(a.id), Buffer.from(b.id)));
    expect(byBytes.map((m) => m.t)).toEqual(byTime.map((m) => m.t));
    // one millisecond later always sorts after, whatever the random parts
    for (let i = 0; i < 200; i++) {
      const t = start + i * 1_000_003;
      expect(newInvocationId(t) < newInvocationId(t + 1)).toBe(true);
    }
  });

  it('carry 128 random bits: every bit of the random part varies, and ids of one millisecond all differ', () => {
    const at = Date.UTC(2026, 11, 2);
    const ids = Array.from({ length: 512 }, () => newInvocationId(at));
    expect(new Set(ids).size).toBe(ids.length);
    const ones = new Array<number>(INVOCATION_ID_RANDOM_BYTES * 8).fill(0);
    for (const id of ids) {
      const bytes = randomPart(id);
      for (let bit = 0; bit < ones.length; bit++)
        if ((bytes[bit >> 3]! >> (7 - (bit & 7))) & 1) ones[bit]! += 1;
    }
    // a bit stuck at 0 or 1 over 512 draws has odds 2^-511 of being chance: a narrower id fails here
    for (const [bit, n] of ones.entries()) {
      expect(n, `random bit ${bit}`).toBeGreaterThan(0);
      expect(n, `random bit ${bit}`).toBeLessThan(ids.length);
    }
  });

  it('pass every check an invocation id meets: the Hub invoke request, the IPC bridge, the journal record', () => {
    const id = newInvocationId();
    expect(InvokeRequestSchema.shape.invocation_id.safeParse(id).success).toBe(true);
    expect(CALLS.inspectInvocation.input.safeParse({ session_id: 'ses_1', invocation_id: id }).success).toBe(
      true,
    );
    expect(JournalEntryV2Schema.shape.invocation_id.safeParse(id).success).toBe(true);
  });
});
