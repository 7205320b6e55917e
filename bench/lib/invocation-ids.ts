/**
 * The invocation ids the benchmarks send, as the desk makes them: its own id maker
 * (src-shared/invocation-id.ts: creation time, then 128 random bits, so they sort by creation).
 * `BENCH_IDS=random` sends the desk's earlier random ids instead (`inv_` + 24 random bytes, 36
 * characters), the ids of a client that does not order its own, so both can be measured.
 */
import { randomBytes } from 'node:crypto';
import { newInvocationId } from '../../src-shared/invocation-id.js';

export type BenchIdKind = 'time-ordered' | 'random';

function kindFromEnv(): BenchIdKind {
  const v = process.env.BENCH_IDS ?? 'time-ordered';
  if (v !== 'time-ordered' && v !== 'random')
    throw new Error(`BENCH_IDS must be "time-ordered" (the default) or "random", not ${JSON.stringify(v)}`);
  return v;
}

export const BENCH_ID_KIND: BenchIdKind = kindFromEnv();

export const benchInvocationId: () => string =
  BENCH_ID_KIND === 'random' ? () => `inv_${randomBytes(24).toString('base64url')}` : () => newInvocationId();

/** For headings: which ids ran. */
export const benchIdsLabel = (): string =>
  BENCH_ID_KIND === 'random'
    ? 'invocation ids: random (BENCH_IDS=random)'
    : "invocation ids: the desk's, time-ordered (BENCH_IDS=random for random ones)";
