/**
 * Hubs for the benchmarks as processes of their own (the load generator is another one): one Hub
 * on SQLite, or N Hub instances on one PostgreSQL database. Configured with the bench shop (demo
 * shop A without a declared rate limit) and one client.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Declaration } from '../../src-shared/hub-api.js';
import type { HubConfig } from '../../src-hub/index.js';
import type { DemoSystemHandle } from '../../demo/types.js';
import { BENCH_SHOP } from './bench-shop.js';

const root = resolve(import.meta.dirname, '../..');

export interface BenchHubs {
  label: string;
  urls: string[];
  token: string;
  /** Where its store is (for the permit micro-benchmark, which opens it directly). */
  store: { dataDir?: string; url?: string };
  durability: string;
  post(path: string, body: unknown, instance?: number): Promise<{ status: number; body: any }>; // eslint-disable-line @typescript-eslint/no-explicit-any
  get(path: string): Promise<any>; // eslint-disable-line @typescript-eslint/no-explicit-any
  declaration(tool: string): Promise<Declaration>;
  /**
   * CPU time (user + system, ms) the Hub processes have used so far, all their threads, summed over
   * the instances (Linux /proc; null elsewhere): the Hub's cost per call, which the machine's load
   * changes far less than its latency.
   */
  cpuMs(): HubCpu | null;
  /** SQLite: transactions committed and writes they carried, summed over the instances (null on PostgreSQL). */
  commits(): Promise<{ batches: number; writes: number } | null>;
  run(sessionId: string): Promise<string>;
  close(): Promise<void>;
}

/** CPU time (ms) of the Hub processes: all threads, the main (event-loop) thread, and the kernel's share. */
export interface HubCpu {
  total: number;
  /** The main thread alone (HTTP, validation, reads, dispatch); the rest is the store's threads. */
  main: number;
  /** Time in the kernel (system calls: sockets, fsync, waking threads), all threads. */
  system: number;
  /** Every other thread's time so far, by `pid/tid` (the SQLite writer, V8's helpers, libuv's pool). */
  others: Record<string, number>;
  /**
   * Time (ms) the threads were ready to run but waited for a CPU (/proc/…/schedstat, the run
   * queue), all threads and the main thread alone; NaN where the kernel does not keep it.
   */
  waited: number;
  waitedMain: number;
}

/** CPU (ms) the Hub processes spent between two readings, per call when divided. */
export interface HubCpuSpent {
  total: number;
  main: number;
  system: number;
  /**
   * The busiest thread besides the main ones (per process, summed over the instances): on SQLite
   * the writer thread, which runs every transaction and its fsync.
   */
  busiestOther: number;
  /** Time its threads waited for a CPU (run queue), all threads and the main thread. */
  waited: number;
  waitedMain: number;
}

export function cpuSpent(before: HubCpu, after: HubCpu, calls: number): HubCpuSpent {
  const busiest = new Map<string, number>();
  for (const [thread, ms] of Object.entries(after.others)) {
    const pid = thread.split('/')[0]!;
    const spent = ms - (before.others[thread] ?? 0);
    busiest.set(pid, Math.max(busiest.get(pid) ?? 0, spent));
  }
  return {
    total: (after.total - before.total) / calls,
    main: (after.main - before.main) / calls,
    system: (after.system - before.system) / calls,
    busiestOther: [...busiest.values()].reduce((a, b) => a + b, 0) / calls,
    waited: (after.waited - before.waited) / calls,
    waitedMain: (after.waitedMain - before.waitedMain) / calls,
  };
}

/** utime and stime (ms) from a /proc stat line (fields 14 and 15, in clock ticks of 10 ms). */
function statTimes(path: string): { user: number; system: number } {
  const stat = readFileSync(path, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: Number(fields[11]) * 10, system: Number(fields[12]) * 10 };
}

/** A thread's time waiting on a run queue (ms), the second field of its schedstat (ns); NaN if unknown. */
function runQueueWait(path: string): number {
  try {
    return Number(readFileSync(path, 'utf8').split(' ')[1]) / 1e6;
  } catch {
    return NaN;
  }
}

export function processCpu(pid: number | undefined): HubCpu | null {
  if (pid === undefined) return null;
  try {
    const all = statTimes(`/proc/${pid}/stat`);
    const main = statTimes(`/proc/${pid}/task/${pid}/stat`);
    const waitedMain = runQueueWait(`/proc/${pid}/task/${pid}/schedstat`);
    let waited = waitedMain;
    const others: Record<string, number> = {};
    for (const tid of readdirSync(`/proc/${pid}/task`)) {
      if (tid === String(pid)) continue;
      try {
        const t = statTimes(`/proc/${pid}/task/${tid}/stat`);
        others[`${pid}/${tid}`] = t.user + t.system;
        waited += runQueueWait(`/proc/${pid}/task/${tid}/schedstat`);
      } catch {
        // the thread ended between the listing and the read
      }
    }
    return {
      total: all.user + all.system,
      main: main.user + main.system,
      system: all.system,
      others,
      waited,
      waitedMain,
    };
  } catch {
    return null;
  }
}

export function benchConfig(shop: DemoSystemHandle, token: string): HubConfig {
  return {
    systems: [
      {
        system_id: BENCH_SHOP.system_id,
        name: 'Bench shop',
        base_url: shop.url,
        signing_secret: shop.secret,
      },
    ],
    clients: [{ client_id: 'bench', name: 'bench', token }],
    authorizations: [
      {
        authorization_ref: BENCH_SHOP.authorization_ref,
        system_id: BENCH_SHOP.system_id,
        account: BENCH_SHOP.account,
        on_behalf_of: 'operator@demo.local',
        grant_to: ['bench'],
      },
    ],
    admin_token: `bench-admin-${randomBytes(12).toString('hex')}`,
    // the benchmark is the load, not abuse
    rate_limits: { agent: null, admin: null },
  } as HubConfig;
}

export function freePort(): Promise<number> {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.once('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address();
      srv.close(() => res(typeof a === 'object' && a ? a.port : 0));
    });
  });
}

/**
 * BENCH_HUB_CPUS=LIST (taskset's list form, e.g. `1` or `0,1`): every Hub process and all its
 * threads run only on those CPUs (Linux `taskset -c`, which execs the command: the process id stays
 * the Hub's). On a 2-core VM the Hub's main thread and its SQLite writer wake each other four times
 * per governed write; on one core that wake-up needs no interrupt between CPUs.
 */
/** How the bench output names where the Hubs ran ('' when BENCH_HUB_CPUS is not set). */
export function hubCpusLabel(): string {
  return process.env.BENCH_HUB_CPUS
    ? `; Hub processes on CPU ${process.env.BENCH_HUB_CPUS} only (BENCH_HUB_CPUS)`
    : '';
}

export function onHubCpus(command: string, args: string[]): [string, string[]] {
  const cpus = process.env.BENCH_HUB_CPUS;
  if (!cpus) return [command, args];
  if (!/^\d+(-\d+)?(,\d+(-\d+)?)*$/.test(cpus))
    throw new Error(`BENCH_HUB_CPUS must be a CPU list such as 1 or 0,1 (got ${JSON.stringify(cpus)})`);
  return ['taskset', ['-c', cpus, command, ...args]];
}

/**
 * Starts one Hub process, logging only warnings unless BENCH_HUB_LOG_LEVEL says otherwise (`info`,
 * the Hub's default, logs every request: that cost is then part of the figures).
 */
async function spawnHub(
  dir: string,
  name: string,
  storeArgs: string[],
  config: HubConfig,
  extraEnv: Record<string, string> = {},
  from: string = root,
): Promise<{ proc: ChildProcess; url: string; durability: string }> {
  const configPath = join(dir, `${name}.json`);
  writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  const port = await freePort();
  const [command, args] = onHubCpus(process.execPath, [
    // BENCH_HUB_CPU_PROF=DIR: each Hub process (and its SQLite writer thread) writes a CPU profile there
    ...(process.env.BENCH_HUB_CPU_PROF
      ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_HUB_CPU_PROF]
      : []),
    // BENCH_HUB_NODE_FLAGS: more flags for the Hub processes' node (e.g. V8 heap settings to compare)
    ...(process.env.BENCH_HUB_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    '--import',
    'tsx',
    join(from, 'src-hub/cli.ts'),
    '--port',
    String(port),
    ...storeArgs,
    '--config',
    configPath,
  ]);
  const proc = spawn(command, args, {
    cwd: from,
    stdio: ['ignore', 'inherit', 'inherit'],
    env: { ...process.env, ...extraEnv, HUB_LOG_LEVEL: process.env.BENCH_HUB_LOG_LEVEL ?? 'warn' },
  });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  proc.once('exit', () => (exited = true));
  for (;;) {
    if (exited) throw new Error(`bench Hub ${name} exited before listening`);
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const metrics = await fetch(`${url}/admin/v1/metrics`, {
    headers: { authorization: `Bearer ${config.admin_token}` },
  }).then((r) => r.json() as Promise<{ durability: string }>);
  return { proc, url, durability: metrics.durability };
}

export async function startHubs(
  label: string,
  shop: DemoSystemHandle,
  where: { sqlite: true } | { postgresUrl: string; instances: number },
  /** Another checkout to run the Hub from (an A/B comparison of two versions of its code). */
  from: string = root,
): Promise<BenchHubs> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-'));
  const token = `bdc_bench.${randomBytes(24).toString('base64url')}`;
  const config = benchConfig(shop, token);
  const procs: ChildProcess[] = [];
  let urls: string[];
  let durability: string;
  let store: BenchHubs['store'];
  if ('sqlite' in where) {
    const data = join(dir, 'data');
    const h = await spawnHub(dir, 'hub', ['--data', data], config, {}, from);
    procs.push(h.proc);
    urls = [h.url];
    durability = h.durability;
    store = { dataDir: data };
  } else {
    // every instance on one database needs the same secret key (no default on PostgreSQL)
    const keyEnv = { BAILING_HUB_SECRET_KEY: randomBytes(32).toString('hex') };
    const hubs = await Promise.all(
      Array.from({ length: where.instances }, (_, i) =>
        spawnHub(
          dir,
          `hub-${i + 1}`,
          ['--store', where.postgresUrl, '--instance', `hub-${i + 1}`],
          config,
          keyEnv,
          from,
        ),
      ),
    );
    procs.push(...hubs.map((h) => h.proc));
    urls = hubs.map((h) => h.url);
    durability = hubs[0]!.durability;
    store = { url: where.postgresUrl };
  }
  const request = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${token}`,
        ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const hubs: BenchHubs = {
    label,
    urls,
    token,
    store,
    durability,
    post: (path, body, instance = 0) => request('POST', urls[instance % urls.length] + path, body),
    get: async (path) => (await request('GET', urls[0] + path)).body,
    async declaration(tool) {
      const r = await hubs.post('/agent/v1/tools/search', {
        query: tool,
        authorization_refs: [BENCH_SHOP.authorization_ref],
        limit: 50,
      });
      const d = (r.body.declarations as Declaration[]).find((x) => x.tool === tool);
      if (!d) throw new Error(`no declaration ${tool}: ${JSON.stringify(r.body)}`);
      return d;
    },
    cpuMs() {
      const sum: HubCpu = { total: 0, main: 0, system: 0, others: {}, waited: 0, waitedMain: 0 };
      for (const p of procs) {
        const cpu = processCpu(p.pid);
        if (cpu === null) return null;
        sum.total += cpu.total;
        sum.main += cpu.main;
        sum.system += cpu.system;
        sum.waited += cpu.waited;
        sum.waitedMain += cpu.waitedMain;
        Object.assign(sum.others, cpu.others);
      }
      return sum;
    },
    async commits() {
      const total = { batches: 0, writes: 0 };
      for (const url of urls) {
        const m = (await fetch(`${url}/admin/v1/metrics`, {
          headers: { authorization: `Bearer ${config.admin_token}` },
        }).then((r) => r.json())) as { store_commits?: { batches: number; writes: number } | null };
        if (!m.store_commits) return null;
        total.batches += m.store_commits.batches;
        total.writes += m.store_commits.writes;
      }
      return total;
    },
    async run(sessionId) {
      const r = await hubs.post('/agent/v1/runs', {
        agent_session_id: sessionId,
        turn_id: 'bench',
        authorization_ref: BENCH_SHOP.authorization_ref,
      });
      return r.body.run_id as string;
    },
    async close() {
      await Promise.all(
        procs.map(
          (p) =>
            new Promise<void>((res) => {
              if (p.exitCode !== null) return res();
              p.once('exit', () => res());
              p.kill('SIGTERM');
            }),
        ),
      );
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return hubs;
}
