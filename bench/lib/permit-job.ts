/**
 * Permit transactions alone (the load generator's third kind of job): new -> dispatching with a
 * task permit, through transitionInvocation and the real store (check + grant + `dispatching`,
 * committed), nothing sent. Runs in the load generator's process against the store directly: on
 * SQLite its writer thread group-commits, on PostgreSQL each is one transaction holding the task row.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import type { HubContext } from '../../src-hub/context.js';
import { createEventBus } from '../../src-hub/events/bus.js';
import { transitionInvocation } from '../../src-hub/invocations/transition.js';
import { openStore } from '../../src-hub/store/open-store.js';
import type { HubStore, OperationRecord, RunRecord } from '../../src-hub/store/types.js';
import { benchInvocationId } from './invocation-ids.js';
import { permitInvocationRecord, writePermit } from './permit-record.js';
import { runConcurrent } from './stats.js';

export interface PermitJob {
  kind: 'permits';
  store: { dataDir?: string; url?: string };
  client_id: string;
  task_id: string;
  run: RunRecord;
  operation: OperationRecord;
  calls: number;
  concurrency: number;
  /**
   * Permits granted first, untimed, on a task and session of their own: the measured ones then run
   * on a store whose code is compiled (a running Hub's is; a freshly opened store's SQLite writer
   * thread spends its first thousand permits in V8's compiler). Optional: without it, the figure is
   * the cold one, as earlier rounds measured it.
   */
  warmup?: { task_id: string; run: RunRecord; calls: number };
  /** Called (and awaited) right before the timed permits start, after any warm-up. */
  beforeTimed?: () => Promise<void>;
  /**
   * Each granted permit's outcome recorded (dispatching -> succeeded, the permit released, as the
   * Hub records a sent write's answer) beside the caller's next permit, sent with it and not
   * awaited before it, so the store's batches carry outcomes and new permits together, as a busy
   * Hub's do. Optional: without it, permits alone.
   */
  outcomes?: boolean;
}

/**
 * What transitionInvocation needs of a Hub: the store, a clock, the bus, and an instance that may
 * dispatch. The calls it moves to `dispatching` belong to an instance holding a live lease (as a
 * Hub's do), so the Hubs of the setup, sweeping for orphaned calls, leave them alone. The lease is
 * left to outlive the setup (its store is thrown away after it): stopping it would have the Hubs
 * recover these calls during the next measurement. One id per job: a reused id would be a new
 * incarnation of it, which orphans the last job's calls.
 */
export async function benchHubContext(store: HubStore, prefix: string): Promise<HubContext> {
  const instance = await store.registerInstance({
    instance_id: `${prefix}-${randomUUID().slice(0, 8)}`,
    host: hostname(),
    pid: process.pid,
    started_at: new Date().toISOString(),
    lease_ms: 600_000,
  });
  return {
    store,
    now: () => new Date(),
    bus: createEventBus(),
    instance: { id: instance.instance_id, incarnation: instance.incarnation },
  } as unknown as HubContext;
}

/**
 * Each thread's CPU time so far (ns, by thread id) from /proc/self/task/TID/schedstat: on SQLite the
 * permit process's main thread (the callers, transitionInvocation, the store's client side), the
 * writer thread and V8's helper threads (JIT compilation, GC). Empty where /proc has no schedstat.
 */
export function threadCpuNs(): Map<string, number> {
  const out = new Map<string, number>();
  let tids: string[];
  try {
    tids = readdirSync('/proc/self/task');
  } catch {
    return out;
  }
  for (const tid of tids) {
    try {
      out.set(tid, Number(readFileSync(`/proc/self/task/${tid}/schedstat`, 'utf8').split(' ')[0]));
    } catch {
      // the thread ended between the listing and the read
    }
  }
  return out;
}

/** µs per call of the main thread, the busiest other thread (SQLite: the writer) and the rest. */
export function threadSplit(before: Map<string, number>, after: Map<string, number>, calls: number) {
  if (after.size === 0) return {};
  const main = String(process.pid);
  let busiest = 0;
  let others = 0;
  for (const [tid, ns] of after) {
    if (tid === main) continue;
    const spent = ns - (before.get(tid) ?? 0);
    others += spent;
    busiest = Math.max(busiest, spent);
  }
  const us = (ns: number) => ns / 1000 / calls;
  return {
    cpu_us_main_thread: us((after.get(main) ?? 0) - (before.get(main) ?? 0)),
    cpu_us_busiest_other_thread: us(busiest),
    cpu_us_rest: us(others - busiest),
  };
}

/**
 * The process's read and write system calls so far, and the bytes they moved (Linux /proc/self/io,
 * sockets included; null elsewhere).
 */
export function syscallCounts(): {
  reads: number;
  writes: number;
  readBytes: number;
  writtenBytes: number;
} | null {
  try {
    const io = readFileSync('/proc/self/io', 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? NaN);
    return {
      reads: field('syscr'),
      writes: field('syscw'),
      readBytes: field('rchar'),
      writtenBytes: field('wchar'),
    };
  } catch {
    return null;
  }
}

export async function runPermitJob(job: PermitJob) {
  const store = await openStore(job.store);
  const ctx = await benchHubContext(store, 'bench-permits');
  if (job.warmup) {
    const w = job.warmup;
    await runConcurrent(w.calls, job.concurrency, async () => {
      await grantOne(ctx, job, w.task_id, w.run);
    });
  }
  await job.beforeTimed?.();
  const states: Record<string, number> = {};
  const commitsBefore = store.commitStats ? await store.commitStats() : null;
  const cpuBefore = process.cpuUsage();
  const threadsBefore = threadCpuNs();
  const syscallsBefore = syscallCounts();
  const outcomes: Array<Promise<unknown>> = [];
  try {
    const timed = await runConcurrent(job.calls, job.concurrency, async () => {
      const r = await grantOne(ctx, job, job.task_id, job.run);
      if (job.outcomes && r.kind === 'applied') outcomes.push(recordOutcome(ctx, r.record.invocation_id));
      const key = r.kind === 'refused' ? r.refusal.code : r.kind;
      states[key] = (states[key] ?? 0) + 1;
    });
    const t0 = performance.now();
    await Promise.all(outcomes);
    const { samples } = timed;
    const wallMs = timed.wallMs + (performance.now() - t0);
    const cpu = process.cpuUsage(cpuBefore);
    // read before the store closes: the writer thread's entry goes when it exits
    const threads = threadSplit(threadsBefore, threadCpuNs(), job.calls);
    const syscalls = syscallCounts();
    const task = await store.getTask(job.task_id);
    const commits = commitsBefore && store.commitStats ? await store.commitStats() : null;
    return {
      ok: true as const,
      samples,
      wallMs,
      states,
      extra: {
        writes_used: task?.writes_used ?? -1,
        // the process's CPU (all threads: the caller, and on SQLite the writer thread) per permit
        cpu_us_per_permit: (cpu.user + cpu.system) / job.calls,
        // the same split by thread (Linux): main thread, busiest other (SQLite: the writer), the rest
        ...threads,
        // socket reads and writes are most of them (Linux)
        ...(syscalls && syscallsBefore
          ? {
              read_syscalls_per_permit: (syscalls.reads - syscallsBefore.reads) / job.calls,
              write_syscalls_per_permit: (syscalls.writes - syscallsBefore.writes) / job.calls,
              read_bytes_per_permit: (syscalls.readBytes - syscallsBefore.readBytes) / job.calls,
              written_bytes_per_permit: (syscalls.writtenBytes - syscallsBefore.writtenBytes) / job.calls,
            }
          : {}),
        permits_granted: task?.permits_granted ?? -1,
        // SQLite: transactions (fsyncs) the permits took, i.e. how well group commit batched them
        ...(commits && commitsBefore
          ? {
              commits: commits.batches - commitsBefore.batches,
              committed_writes: commits.writes - commitsBefore.writes,
            }
          : {}),
      },
    };
  } finally {
    await store.close();
  }
}

/** A sent call's answer: `dispatching` -> `succeeded`, its permit released. */
export function recordOutcome(ctx: HubContext, invocationId: string) {
  const at = new Date();
  return transitionInvocation(ctx, {
    invocation_id: invocationId,
    from: 'dispatching',
    to: 'succeeded',
    patch: { dispatch: 'confirmed', business_status: 200 },
    release_permit: { now_ms: at.getTime() },
    audit: { actor: 'bench', kind: 'invocation.succeeded', detail: {} },
  });
}

/** One permit transaction: a new call moved to `dispatching` with a write permit of the task. */
export function grantOne(
  ctx: HubContext,
  job: Pick<PermitJob, 'client_id' | 'operation'>,
  taskId: string,
  run: RunRecord,
) {
  const at = new Date();
  const id = benchInvocationId();
  const rec = permitInvocationRecord({
    invocation_id: id,
    client_id: job.client_id,
    task_id: taskId,
    run,
    operation: job.operation,
    at,
  });
  return transitionInvocation(ctx, {
    invocation_id: id,
    from: 'new',
    to: 'dispatching',
    create: rec,
    patch: { dispatch: 'attempted' },
    permit: writePermit(taskId, at),
    audit: { actor: 'bench', kind: 'invocation.created', detail: {} },
  });
}
