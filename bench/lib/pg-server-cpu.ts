/**
 * The CPU a private PostgreSQL cluster's processes use (user + system), read from /proc: the
 * postmaster and its live children (the backends serving the connections, WAL writer,
 * checkpointer, …). Autovacuum workers (and children that have exited) are left out: whether one runs inside a measured window is
 * a matter of timing (a minute's nap), and its work is not the measured transactions'. The
 * cluster is found by its port on the postmaster's command line, so the clusters of other runs on
 * the same machine are not counted. Null where /proc cannot tell (not Linux, or not found).
 */
import { readdirSync, readFileSync } from 'node:fs';

const TICKS_PER_S = 100; // USER_HZ on Linux

/** CPU ticks so far of each process, by pid, and what each is (its title: backend, walwriter, …). */
export type PgServerCpu = Map<string, { ticks: number; kind: string }>;

function read(path: string): string | null {
  try {
    return readFileSync(path, 'utf8');
  } catch {
    return null; // the process ended between the listing and the read
  }
}

const pids = () => readdirSync('/proc').filter((p) => /^\d+$/.test(p));

/** The fields after the command name (which is in parentheses and may hold spaces). */
function statOf(pid: string): string[] | null {
  const raw = read(`/proc/${pid}/stat`);
  return raw === null ? null : raw.slice(raw.lastIndexOf(')') + 2).split(' ');
}

function postmasterOf(port: number): string | null {
  for (const pid of pids()) {
    const args = read(`/proc/${pid}/cmdline`)?.split('\0') ?? [];
    const p = args.indexOf('-p');
    if (/postgres$/.test(args[0] ?? '') && p > 0 && args[p + 1] === String(port)) return pid;
  }
  return null;
}

export function pgServerCpu(port: number): PgServerCpu | null {
  let postmaster: string | null;
  try {
    postmaster = postmasterOf(port);
  } catch {
    return null;
  }
  if (postmaster === null) return null;
  const out: PgServerCpu = new Map();
  for (const pid of pids()) {
    const st = statOf(pid);
    // state(0) ppid(1) … utime(11) stime(12)
    if (!st || (pid !== postmaster && st[1] !== postmaster)) continue;
    const title = read(`/proc/${pid}/cmdline`)?.replace(/\0/g, ' ') ?? '';
    // a child that has exited (a zombie, or gone before its title was read) has no title left: an
    // autovacuum worker, as a rule
    if (title.includes('autovacuum worker') || title === '' || st[0] === 'Z') continue;
    // "postgres: postgres DB 127.0.0.1(port) state" is a backend; "postgres: walwriter" etc. are not
    const kind =
      pid === postmaster
        ? 'postmaster'
        : /^postgres: \S+ \S+ \S+\(\d+\)/.test(title)
          ? 'backends'
          : title.replace(/^postgres: /, '').trim();
    out.set(pid, { ticks: Number(st[11]) + Number(st[12]), kind });
  }
  return out;
}

/**
 * Milliseconds of CPU between two readings, in all and by kind of process (a process started since
 * counts from its start).
 */
export function pgServerCpuMs(
  before: PgServerCpu | null,
  after: PgServerCpu | null,
): { total: number; byKind: Map<string, number> } | null {
  if (!before || !after) return null;
  const byKind = new Map<string, number>();
  let total = 0;
  for (const [pid, { ticks, kind }] of after) {
    const ms = ((ticks - (before.get(pid)?.ticks ?? 0)) * 1000) / TICKS_PER_S;
    total += ms;
    byKind.set(kind, (byKind.get(kind) ?? 0) + ms);
  }
  return { total, byKind };
}
