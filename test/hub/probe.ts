/**
 * Measurements for load tests that stay meaningful on a busy shared machine: a /health probe in
 * its own process (so the test process's own work does not delay it) and a child process's RSS
 * from /proc.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import { readFileSync, writeFileSync } from 'node:fs';

const PROBE = `
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
const url = new URL(process.argv[1]);
const interval = Number(process.argv[2]);
const latencies = [];
let failures = 0;
let stopping = false;
const once = () => new Promise((resolve) => {
  const t0 = process.hrtime.bigint();
  const req = http.get({ host: url.hostname, port: url.port, path: '/health', agent }, (res) => {
    res.resume();
    res.on('end', () => {
      if (res.statusCode === 200) latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
      else failures++;
      resolve();
    });
  });
  req.on('error', () => { failures++; resolve(); });
});
(async () => {
  process.stdout.write('ready\\n');
  while (!stopping) {
    await once();
    await new Promise((r) => setTimeout(r, interval));
  }
  process.stdout.write(JSON.stringify({ latencies, failures }) + '\\n');
  process.exit(0);
})();
process.stdin.on('data', () => { stopping = true; });
process.stdin.resume();
`;

/**
 * Gives a measured process (the Hub, the probe) a higher scheduling priority where that is allowed
 * (root), so other work on a shared machine does not show up as the Hub's latency. Returns whether
 * it could.
 */
export function favour(pid: number): boolean {
  try {
    setPriority(pid, -10);
    return true;
  } catch {
    return false;
  }
}

export interface HealthProbe {
  /** Stops probing; resolves with every latency (ms) and the number of failed probes. */
  stop(): Promise<{ latencies: number[]; failures: number }>;
}

export async function startHealthProbe(baseUrl: string, intervalMs = 10): Promise<HealthProbe> {
  const proc = spawn(process.execPath, ['-e', PROBE, baseUrl, String(intervalMs)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  if (proc.pid) favour(proc.pid);
  let out = '';
  proc.stdout.on('data', (c: Buffer) => (out += c.toString()));
  await new Promise<void>((res, rej) => {
    const check = () => (out.includes('ready\n') ? res() : undefined);
    proc.stdout.on('data', check);
    proc.once('exit', (code) => rej(new Error(`health probe exited (${code})`)));
  });
  return {
    async stop() {
      const exited = new Promise<void>((res) => proc.once('exit', () => res()));
      proc.stdin.write('stop\n');
      await exited;
      const line = out.split('\n').find((l) => l.startsWith('{'));
      if (!line) throw new Error(`health probe gave no result: ${out}`);
      return JSON.parse(line) as { latencies: number[]; failures: number };
    },
  };
}

const CONTROL = `
const http = require('node:http');
const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'application/json' }); res.end('{"ok":true}'); });
server.listen(0, '127.0.0.1', () => process.stdout.write('port ' + server.address().port + '\\n'));
process.stdin.on('data', () => { server.closeAllConnections(); server.close(() => process.exit(0)); });
process.stdin.resume();
`;

/**
 * An idle HTTP server in a process of its own, favoured like the Hub, probed at the same time as
 * the Hub: what the machine's other work does to a server that does nothing, measured over the
 * same interval. A load test asserts the Hub's latency beyond this control, so a shared machine
 * busy with other runs does not count as the Hub stalling.
 */
export async function startControlledProbe(
  baseUrl: string,
  intervalMs = 10,
): Promise<{ stop(): Promise<{ latencies: number[]; failures: number; control: number[] }> }> {
  const server = spawn(process.execPath, ['-e', CONTROL], { stdio: ['pipe', 'pipe', 'inherit'] });
  if (server.pid) favour(server.pid);
  const port = await new Promise<number>((res, rej) => {
    let out = '';
    server.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const m = /port (\d+)\n/.exec(out);
      if (m) res(Number(m[1]));
    });
    server.once('exit', (code) => rej(new Error(`control server exited (${code})`)));
  });
  const control = await startHealthProbe(`http://127.0.0.1:${port}`, intervalMs);
  const probe = await startHealthProbe(baseUrl, intervalMs);
  return {
    async stop() {
      const [measured, idle] = await Promise.all([probe.stop(), control.stop()]);
      const exited = new Promise<void>((res) => server.once('exit', () => res()));
      server.stdin.write('stop\n');
      await exited;
      if (idle.failures > 0) throw new Error(`the control server failed ${idle.failures} probes`);
      return { ...measured, control: idle.latencies };
    },
  };
}

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

/**
 * Peak RSS growth of a process over a phase, from the kernel's own high-water mark (VmHWM), so no
 * sample can miss the peak however busy the test process is. `start()` resets the mark.
 */
export function rssGrowth(pid: number): { start(): void; growth(): number } {
  let base = 0;
  const field = (name: string) => {
    const kb = new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    )?.[1];
    if (!kb) throw new Error(`no ${name} for ${pid}`);
    return Number(kb) * 1024;
  };
  return {
    start() {
      writeFileSync(`/proc/${pid}/clear_refs`, '5'); // resets VmHWM to the current RSS
      base = field('VmRSS');
    },
    growth: () => field('VmHWM') - base,
  };
}
