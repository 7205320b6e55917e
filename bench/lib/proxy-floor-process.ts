/**
 * Starts a proxy floor (proxy-floor.ts) as a process of its own, the way hub-processes.ts starts a
 * Hub (BENCH_HUB_CPUS and BENCH_HUB_NODE_FLAGS apply to it too), and reads its CPU from /proc.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { DemoSystemHandle } from '../../demo/types.js';
import type { CompiledOperation } from '../../src-hub/acc/types.js';
import { freePort, onHubCpus, processCpu, type HubCpu } from './hub-processes.js';
import type { ProxyFloorConfig, ProxyFloorStats } from './proxy-floor.js';

const root = resolve(import.meta.dirname, '../..');

export interface ProxyFloorSpec {
  name: string;
  server: ProxyFloorConfig['server'];
  durable: boolean;
}

export interface ProxyFloorProcess {
  url: string;
  cpuMs(): HubCpu | null;
  /** The durable proxy's commits so far (null for a bare one) and the stages since the last reading. */
  stats(): Promise<ProxyFloorStats>;
  close(): Promise<void>;
}

export async function startProxyFloor(
  spec: ProxyFloorSpec,
  shop: DemoSystemHandle,
  operations: Record<string, CompiledOperation>,
): Promise<ProxyFloorProcess> {
  const dir = mkdtempSync(join(tmpdir(), 'hub-bench-proxy-'));
  const port = await freePort();
  const config: ProxyFloorConfig = {
    port,
    server: spec.server,
    ...(spec.durable ? { commitFile: join(dir, 'floor.sqlite') } : {}),
    shop: { url: shop.url, systemId: shop.systemId, secret: shop.secret },
    operations,
  };
  const configPath = join(dir, 'proxy.json');
  writeFileSync(configPath, JSON.stringify(config), { mode: 0o600 });
  const [command, args] = onHubCpus(process.execPath, [
    ...(process.env.BENCH_HUB_NODE_FLAGS?.split(' ').filter(Boolean) ?? []),
    '--import',
    'tsx',
    join(root, 'bench/lib/proxy-floor.ts'),
    configPath,
  ]);
  const proc = spawn(command, args, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  let exited = false;
  proc.once('exit', () => (exited = true));
  const close = async () => {
    if (!exited) {
      const gone = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await gone;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  for (;;) {
    if (exited) {
      await close();
      throw new Error(`proxy floor ${spec.name} exited before listening`);
    }
    const up = await fetch(`${url}/health`).then(
      (r) => r.ok,
      () => false,
    );
    if (up) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    cpuMs: () => processCpu(proc.pid),
    stats: async () => (await fetch(`${url}/floor/stats`).then((r) => r.json())) as ProxyFloorStats,
    close,
  };
}
