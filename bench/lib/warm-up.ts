/**
 * How many untimed calls of each kind (read, then write) every target of `bench:hub` gets before any
 * of its cases is measured: the direct call, each Hub setup and each proxy floor. Both kinds are
 * warmed first, so the first case measured (reads) does not also pay for V8 compiling the code the
 * second uses, and the direct call at the start runs as warm as the direct call measured around
 * each Hub case. `BENCH_WARMUP` sets it (default 1,000); rounds before 2026-12-03 17:00 UTC warmed
 * the direct call with 20 calls and each Hub kind with 40 right before its own cases.
 */
export const WARMUP_CALLS = Number(process.env.BENCH_WARMUP ?? 1_000);
export const WARMUP_CONCURRENCY = 8;
