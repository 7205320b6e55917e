/**
 * A private PostgreSQL cluster for tests and benchmarks, from Debian's binaries: initdb into a
 * temporary directory, a free port on 127.0.0.1, the socket in that directory, stopped and deleted
 * by `stop()`. No system service. initdb refuses to run as root, so as root the cluster runs as the
 * `postgres` user (runuser) after the directory is handed to it.
 */
import { spawnSync } from 'node:child_process';
import { chownSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
// @ts-expect-error -- plain ESM script without type declarations (scripts/system-deps.mjs)
import { postgresBinDir } from './system-deps.mjs';

export interface PrivatePostgres {
  /** postgres://postgres@127.0.0.1:PORT/postgres (trust authentication, loopback only) */
  adminUrl: string;
  port: number;
  binDir: string;
  /** A URL for a database of that name in this cluster. */
  urlFor(database: string): string;
  /** Stops the server, keeping its data (connections are cut: the Hub sees PostgreSQL go away). */
  stopServer(): void;
  /** Starts the stopped server again on the same port. */
  startServer(): void;
  /** Stops the server and deletes the cluster. */
  stop(): void;
}

export type PrivatePostgresResult = { ok: true; cluster: PrivatePostgres } | { ok: false; reason: string };

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export async function startPrivatePostgres(
  opts: { settings?: Record<string, string | number> } = {},
): Promise<PrivatePostgresResult> {
  const binDir = postgresBinDir() as string | null;
  if (!binDir) {
    return {
      ok: false,
      reason:
        "PostgreSQL's server binaries are not installed (/usr/lib/postgresql/*/bin); apt-get install -y postgresql",
    };
  }
  const asRoot = process.getuid?.() === 0;
  const dir = mkdtempSync(join(tmpdir(), 'bailing-pg-'));
  const data = join(dir, 'data');
  const run = (cmd: string, args: string[]) => {
    const full = asRoot
      ? ['runuser', ['-u', 'postgres', '--', join(binDir, cmd), ...args]]
      : [join(binDir, cmd), args];
    return spawnSync(full[0] as string, full[1] as string[], { encoding: 'utf8', cwd: dir });
  };
  if (asRoot) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  const init = run('initdb', [
    '-D',
    data,
    '-U',
    'postgres',
    '--auth=trust',
    '-E',
    'UTF8',
    '--no-sync',
    '--no-instructions',
  ]);
  if (init.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { ok: false, reason: `initdb failed: ${init.stderr || init.stdout}` };
  }
  const port = await freePort();
  const settings: Record<string, string | number> = {
    listen_addresses: '127.0.0.1',
    max_connections: 500,
    shared_buffers: '64MB',
    ...opts.settings,
  };
  writeFileSync(
    join(data, 'postgresql.auto.conf'),
    Object.entries(settings)
      .map(([k, v]) => `${k} = '${v}'\n`)
      .join(''),
  );
  const startServer = () =>
    run('pg_ctl', [
      '-D',
      data,
      '-o',
      `-p ${port} -k ${dir}`,
      '-l',
      join(dir, 'server.log'),
      '-w',
      '-t',
      '60',
      'start',
    ]);
  const start = startServer();
  if (start.status !== 0) {
    rmSync(dir, { recursive: true, force: true });
    return { ok: false, reason: `pg_ctl start failed: ${start.stderr || start.stdout}` };
  }
  const urlFor = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`;
  let stopped = false;
  return {
    ok: true,
    cluster: {
      adminUrl: urlFor('postgres'),
      port,
      binDir,
      urlFor,
      stopServer() {
        const r = run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
        if (r.status !== 0) throw new Error(`pg_ctl stop failed: ${r.stderr || r.stdout}`);
      },
      startServer() {
        const r = startServer();
        if (r.status !== 0) throw new Error(`pg_ctl start failed: ${r.stderr || r.stdout}`);
      },
      stop() {
        if (stopped) return;
        stopped = true;
        run('pg_ctl', ['-D', data, '-m', 'fast', '-w', 'stop']);
        rmSync(dir, { recursive: true, force: true });
      },
    },
  };
}

function idOf(flag: '-u' | '-g', user: string): number {
  const r = spawnSync('id', [flag, user], { encoding: 'utf8' });
  const n = Number(r.stdout.trim());
  if (r.status !== 0 || !Number.isInteger(n))
    throw new Error(`no system user ${user} (PostgreSQL runs as it)`);
  return n;
}
const uidOf = (user: string) => idOf('-u', user);
const gidOf = (user: string) => idOf('-g', user);
