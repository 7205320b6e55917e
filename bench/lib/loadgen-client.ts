/** The orchestrating side of the load generator: one child process, one job at a time over IPC. */
import { fork, type ChildProcess } from 'node:child_process';
import { resolve } from 'node:path';
import type { LoadJob, LoadResult } from './loadgen.js';
import { summarize, type Summary } from './stats.js';

export interface LoadGenerator {
  run(job: LoadJob): Promise<{
    summary: Summary;
    /** Each call's latency (ms), in the order the calls ended. */
    samples: number[];
    states: Record<string, number>;
    extra?: Record<string, number>;
    /** CPU (ms, all threads) the generator's own process spent on the job. */
    cpuMs: number | null;
  }>;
  close(): Promise<void>;
}

export async function startLoadGenerator(): Promise<LoadGenerator> {
  const child: ChildProcess = fork(resolve(import.meta.dirname, 'loadgen.ts'), [], {
    // BENCH_LOADGEN_CPU_PROF=DIR: the load generator (and the store threads it opens) write CPU profiles there
    execArgv: [
      ...(process.env.BENCH_LOADGEN_CPU_PROF
        ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_LOADGEN_CPU_PROF]
        : []),
      '--import',
      'tsx',
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  let waiting: ((r: LoadResult) => void) | null = null;
  child.on('message', (m: LoadResult) => {
    const w = waiting;
    waiting = null;
    w?.(m);
  });
  const next = () => new Promise<LoadResult>((res) => (waiting = res));
  await next(); // ready
  return {
    async run(job) {
      const answer = next();
      child.send(job);
      const r = await answer;
      if (!r.ok) throw new Error(`load generator: ${r.error}`);
      return {
        summary: summarize(r.samples, r.wallMs),
        samples: r.samples,
        states: r.states,
        extra: r.extra,
        cpuMs: r.cpuMs ?? null,
      };
    },
    async close() {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    },
  };
}
