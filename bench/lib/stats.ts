/** Latency statistics for benchmarks: percentiles (nearest-rank) and throughput. */
export interface Summary {
  n: number;
  p50_ms: number;
  p99_ms: number;
  mean_ms: number;
  max_ms: number;
  per_s: number;
}

export function percentile(sortedMs: readonly number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const rank = Math.ceil((p / 100) * sortedMs.length);
  return sortedMs[Math.min(sortedMs.length - 1, Math.max(0, rank - 1))]!;
}

export function summarize(samplesMs: readonly number[], wallMs: number): Summary {
  const s = [...samplesMs].sort((a, b) => a - b);
  const mean = s.reduce((a, b) => a + b, 0) / (s.length || 1);
  return {
    n: s.length,
    p50_ms: percentile(s, 50),
    p99_ms: percentile(s, 99),
    mean_ms: mean,
    max_ms: s.at(-1) ?? NaN,
    per_s: wallMs > 0 ? (s.length * 1000) / wallMs : NaN,
  };
}

/**
 * Runs `total` calls of `fn` with `concurrency` workers; returns per-call latencies and wall time.
 * `fn` receives the global call index.
 */
export async function runConcurrent(
  total: number,
  concurrency: number,
  fn: (i: number) => Promise<void>,
  /** Idle time before each call, not timed: the pace at which a slower client would send them. */
  idleMs = 0,
): Promise<{ samples: number[]; wallMs: number }> {
  const samples: number[] = [];
  let next = 0;
  const start = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        if (idleMs > 0) await new Promise((r) => setTimeout(r, idleMs));
        const t0 = performance.now();
        await fn(i);
        samples.push(performance.now() - t0);
      }
    }),
  );
  return { samples, wallMs: performance.now() - start };
}
