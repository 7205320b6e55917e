/**
 * Two checkouts' SQLite group committers compared in one process, on one thread, at the same
 * moments: each round opens a fresh store per checkout (its own migrations and code, imported from
 * that checkout) and runs their batches alternately, batch by batch, the order flipping every
 * batch, so a drift of the machine's speed falls on both alike. CPU is this process's (no writer
 * thread here: the committer runs on this thread), counted per batch around the committer alone.
 * Used by `BENCH_AB=DIR_A,DIR_B npm run bench:sqlite-permits`.
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import type { InvocationChange } from '../../src-hub/store/types.js';
import { createBenchTask } from './permit-record.js';
import { heading, table } from './print.js';

interface Checkout {
  root: string;
  createSqliteStore: (o: { dataDir: string }) => Parameters<typeof createBenchTask>[0];
  connectWriter: (dir: string) => { close(): void };
  createSqliteSession: (db: unknown) => unknown;
  createGroupCommitter: (
    db: unknown,
    env: unknown,
  ) => {
    run(batch: unknown[]): { answers: Array<{ ok: boolean; error?: { message: string } }> };
    publishViews(): unknown;
  };
  rules: unknown;
}

async function load(root: string): Promise<Checkout> {
  const m = async (p: string) => (await import(join(root, p))) as Record<string, unknown>;
  const store = await m('src-hub/store/sqlite/store.ts');
  const open = await m('src-hub/store/sqlite/open.ts');
  const session = await m('src-hub/store/sqlite/session.ts');
  const gc = await m('src-hub/store/sqlite/writer/group-commit.ts');
  const rules = await m('src-hub/store-rules.ts');
  return {
    root,
    createSqliteStore: store.createSqliteStore as Checkout['createSqliteStore'],
    connectWriter: open.connectWriter as Checkout['connectWriter'],
    createSqliteSession: session.createSqliteSession as Checkout['createSqliteSession'],
    createGroupCommitter: gc.createGroupCommitter as Checkout['createGroupCommitter'],
    rules: rules.STORE_RULES,
  };
}

export interface CommitterAbOptions {
  permits: number;
  batches: number[];
  rounds: number;
  /** Each granted permit's outcome in the next batch (a governed write's mix). */
  outcomes: boolean;
  permitChange: (taskId: string, session: string) => InvocationChange;
  outcomeChange: (invocationId: string) => InvocationChange;
}

async function openSide(c: Checkout, o: CommitterAbOptions) {
  const dir = mkdtempSync(join(tmpdir(), 'sqlite-permits-ab-'));
  const store = c.createSqliteStore({ dataDir: dir });
  const taskId = await createBenchTask(store, o.permits * o.rounds * 10);
  await store.close();
  const db = c.connectWriter(dir);
  const committer = c.createGroupCommitter(db, { sql: c.createSqliteSession(db), rules: c.rules });
  const session = `session_${randomUUID()}`;
  let id = 0;
  let dispatched: string[] = [];
  const side = {
    cpuUs: 0,
    permits: 0,
    runBatch(size: number) {
      const changes = dispatched.map((inv) => o.outcomeChange(inv));
      dispatched = [];
      const fresh = Array.from({ length: size }, () => o.permitChange(taskId, session));
      const requests = [...changes, ...fresh].map((change) => ({
        id: ++id,
        op: 'applyInvocationChange',
        args: [change],
      }));
      const c0 = process.cpuUsage();
      const { answers } = committer.run(requests);
      const c1 = process.cpuUsage(c0);
      side.cpuUs += c1.user + c1.system;
      side.permits += size;
      for (const a of answers) if (!a.ok) throw new Error(a.error?.message);
      if (o.outcomes) dispatched = fresh.map((f) => f.invocation_id);
    },
    close() {
      committer.publishViews();
      db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return side;
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export async function compareCommitters(roots: string[], o: CommitterAbOptions): Promise<void> {
  const [a, b] = [await load(roots[0]!), await load(roots[1]!)];
  heading(
    `Two checkouts' group committers, batch by batch in one process${o.outcomes ? ', each permit with its outcome in the next batch' : ''} (load ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')})`,
  );
  console.log(`A: ${a.root}\nB: ${b.root}`);
  const rows: string[][] = [];
  for (const size of o.batches) {
    const ratios: number[] = [];
    const as: number[] = [];
    const bs: number[] = [];
    for (let r = 0; r < o.rounds; r++) {
      const sa = await openSide(a, o);
      const sb = await openSide(b, o);
      for (let k = 0; k < Math.ceil(o.permits / size); k++) {
        const [first, second] = k % 2 === 0 ? [sa, sb] : [sb, sa];
        first.runBatch(size);
        second.runBatch(size);
      }
      sa.close();
      sb.close();
      as.push(sa.cpuUs / sa.permits);
      bs.push(sb.cpuUs / sb.permits);
      ratios.push(sb.cpuUs / sb.permits / (sa.cpuUs / sa.permits));
    }
    rows.push([
      String(size),
      median(as).toFixed(0),
      median(bs).toFixed(0),
      median(ratios).toFixed(3),
      `${Math.min(...ratios).toFixed(3)}-${Math.max(...ratios).toFixed(3)}`,
      `${ratios.filter((x) => x < 1).length} of ${ratios.length}`,
      ratios.map((x) => x.toFixed(2)).join(' '),
    ]);
  }
  console.log(
    table(
      ['batch', 'A CPU µs/permit', 'B CPU µs/permit', 'B/A median', 'B/A range', 'B lower', 'B/A per round'],
      rows,
    ),
  );
  console.log(
    `(${o.permits} permits per round and checkout, ${o.rounds} rounds; load average after: ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')})`,
  );
}
