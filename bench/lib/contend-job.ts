/**
 * One contended task served by several Hub instances on one PostgreSQL (bench:pg-permits'
 * `contend` kind), as test/cluster/exactness.test.ts loads it, through the store alone: `instances`
 * stores opened on one database in this process (each with its own pool, group commit and event
 * sequencer, as a Hub process has), one task with a write budget and an in-flight limit, and
 * `workers` callers (worker w on instance w mod `instances`) asking for a permit until the budget
 * is exhausted. A granted call is "sent" (a sleep of `delayMs`, the slow business operation) and
 * its outcome recorded (dispatching -> succeeded, the slot freed); a call refused
 * `in_flight_limit` is stored `not_dispatched` and its caller asks again after 5-25 ms.
 * Nothing is sent anywhere. Returns what each instance's group commit ran and what the callers got.
 */
import type { HubContext } from '../../src-hub/context.js';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import type { HubStore, OperationRecord, RunRecord } from '../../src-hub/store/types.js';
import { benchHubContext, grantOne, recordOutcome } from './permit-job.js';

export interface ContendJob {
  url: string;
  task_id: string;
  run: RunRecord;
  operation: OperationRecord;
  instances: number;
  workers: number;
  delayMs: number;
  beforeTimed(): Promise<void>;
}

export interface ContendResult {
  /** Each permit request's latency (ms), granted or refused. */
  samples: number[];
  wallMs: number;
  /** Answers to permit requests, by refusal code or `applied`. */
  answers: Record<string, number>;
  /** Calls granted by each instance. */
  grantedBy: number[];
  /** Transactions the instances' group commits ran, and the changes they carried (requests and outcomes). */
  batches: number;
  changes: number;
  /** The process's CPU (all instances), µs. */
  cpuUs: number;
  writesUsed: number;
  permitsOpen: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function runContendJob(job: ContendJob): Promise<ContendResult> {
  const stores: HubStore[] = [];
  try {
    for (let i = 0; i < job.instances; i++) stores.push(await openPostgresStore({ url: job.url }));
    const ctxs: HubContext[] = [];
    for (const [i, store] of stores.entries()) ctxs.push(await benchHubContext(store, `bench-contend-${i}`));
    await job.beforeTimed();
    const statsOf = async () => {
      let batches = 0;
      let changes = 0;
      for (const s of stores) {
        const st = (await s.commitStats!())!;
        batches += st.batches;
        changes += st.writes;
      }
      return { batches, changes };
    };
    const before = await statsOf();
    const cpuBefore = process.cpuUsage();
    const samples: number[] = [];
    const answers: Record<string, number> = {};
    const grantedBy = stores.map(() => 0);
    const asCaller = { client_id: job.run.client_id, operation: job.operation };
    const started = performance.now();
    const worker = async (w: number) => {
      const i = w % stores.length;
      const ctx = ctxs[i]!;
      for (;;) {
        const t0 = performance.now();
        const r = await grantOne(ctx, asCaller, job.task_id, job.run);
        samples.push(performance.now() - t0);
        const key = r.kind === 'refused' ? r.refusal.code : r.kind;
        answers[key] = (answers[key] ?? 0) + 1;
        if (r.kind === 'applied') {
          grantedBy[i]! += 1;
          await sleep(job.delayMs);
          await recordOutcome(ctx, r.record.invocation_id);
        } else if (r.kind === 'refused' && r.refusal.code === 'in_flight_limit') {
          await sleep(5 + Math.random() * 20);
        } else return;
      }
    };
    await Promise.all(Array.from({ length: job.workers }, (_, w) => worker(w)));
    const wallMs = performance.now() - started;
    const cpu = process.cpuUsage(cpuBefore);
    const after = await statsOf();
    const task = await stores[0]!.getTask(job.task_id);
    const usage = await stores[0]!.taskUsage(job.task_id, Date.now(), null);
    return {
      samples,
      wallMs,
      answers,
      grantedBy,
      batches: after.batches - before.batches,
      changes: after.changes - before.changes,
      cpuUs: cpu.user + cpu.system,
      writesUsed: task?.writes_used ?? -1,
      permitsOpen: usage?.in_flight ?? -1,
    };
  } finally {
    for (const s of stores) await s.close();
  }
}
