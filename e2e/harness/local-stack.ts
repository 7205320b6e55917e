/**
 * The app's embedded default as a separate process: the product's own browser-mode launcher
 * (`src-main/browser-host/cli.ts`, what `npm start` runs where Electron is missing) with its local
 * Hub and demo systems inside it, on an installation prepared by ./local-install.ts (settings with
 * a known client id, the local Hub's tokens in the real OS keychain), plus the scripted model in
 * the harness process. Used where a scenario needs the local Hub's operator in the UI
 * (approvals). The Electron variant launches the Electron app on the same prepared installation
 * instead of `startHost()` (e2e/acceptance/support/electron-local-app.ts).
 *
 * A SIGKILL of the host ends the local Hub and the demo systems with it; they come back on the
 * same data (the Hub's store, its port, the client id and tokens, and the demo systems' business
 * data and ledgers in `<desk>/demo`); only the demo systems' request logs start again.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { assertDataDirsPrivate } from './data-scan.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startScriptedModel, type ScriptedModel } from '../../demo/scripted-model/server.js';
import type { Script } from '../../demo/scripted-model/script.js';
import type { LedgerEntry, RequestLogEntry } from '../../demo/types.js';
import { seedLocalInstall } from './local-install.js';
import { spawnTs, type ChildProc } from './proc.js';
import { ensureRendererBuilt, ROOT } from './renderer-build.js';
import type { HostHandle, SystemId } from './stack.js';

export interface LocalStack {
  dir: string;
  /** The app's data folder (settings, journal, archive, the local Hub's store). */
  desk: string;
  logFile: string;
  model: ScriptedModel;
  /** What the app needs in its environment to use the scripted model. */
  modelEnv: Record<string, string>;
  host: HostHandle | null;
  startHost(): Promise<HostHandle>;
  killHost(): Promise<void>;
  /** The local Hub's URL (from the app's settings file). */
  hubUrl(): string;
  admin<T = unknown>(method: string, path: string, body?: unknown): Promise<T>;
  /** The running demo system's URL, as the local Hub has it registered now. */
  systemUrl(system: SystemId): Promise<string>;
  ledger(system: SystemId): Promise<LedgerEntry[]>;
  requests(system: SystemId): Promise<RequestLogEntry[]>;
  close(): Promise<void>;
}

async function json<T>(res: Response, what: string): Promise<T> {
  const text = await res.text();
  if (!res.ok) throw new Error(`${what}: HTTP ${res.status} ${text.slice(0, 500)}`);
  return JSON.parse(text) as T;
}

export async function startLocalStack(opts: {
  name: string;
  script?: Script;
  keep?: boolean;
}): Promise<LocalStack> {
  await ensureRendererBuilt();
  const dir = mkdtempSync(join(tmpdir(), `bailing-e2e-${opts.name}-`));
  const logFile = join(dir, 'harness.log');
  const desk = join(dir, 'desk');
  mkdirSync(desk, { recursive: true });
  const install = await seedLocalInstall(desk, opts.name);
  const adminToken = install.adminToken;
  const model = await startScriptedModel({ script: opts.script ?? [] });
  const modelEnv = {
    BAILING_MODEL_BASE_URL: model.url,
    BAILING_MODEL: 'scripted-model',
    BAILING_MODEL_API_KEY: 'sk-e2e-scripted',
  };
  const procs: ChildProc[] = [];
  const launchTokens: Record<string, string> = {};

  const stack: LocalStack = {
    dir,
    desk,
    logFile,
    model,
    modelEnv,
    host: null,
    async startHost() {
      if (stack.host?.proc.alive()) throw new Error('the host is already running');
      const proc = spawnTs('host', 'src-main/browser-host/cli.ts', ['--data', desk], {
        cwd: ROOT,
        logFile,
        env: modelEnv,
      });
      procs.push(proc);
      const m = await proc.waitForLine(/^BAILING_URL=(\S+)/, 90_000);
      const url = m[1] ?? '';
      const u = new URL(url);
      stack.host = {
        proc,
        url,
        origin: u.origin,
        token: new URLSearchParams(u.hash.slice(1)).get('token') ?? '',
      };
      launchTokens[`launch_token:${Object.keys(launchTokens).length}`] = stack.host.token;
      return stack.host;
    },
    async killHost() {
      await stack.host?.proc.kill();
    },
    hubUrl() {
      const s = JSON.parse(readFileSync(join(desk, 'settings.json'), 'utf8')) as {
        embedded: { hub_port: number | null } | null;
      };
      const port = s.embedded?.hub_port;
      if (!port) throw new Error('the local Hub port is not in settings.json yet');
      return `http://127.0.0.1:${port}`;
    },
    async admin<T>(method: string, path: string, body?: unknown): Promise<T> {
      const res = await fetch(`${stack.hubUrl()}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${adminToken}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return json<T>(res, `${method} ${path}`);
    },
    async systemUrl(system) {
      const r = await stack.admin<{ systems: { system_id: string; base_url: string }[] }>(
        'GET',
        '/admin/v1/systems',
      );
      const found = r.systems.find((s) => s.system_id === system);
      if (!found) throw new Error(`the local Hub has no system ${system}`);
      return found.base_url;
    },
    async ledger(system) {
      return (
        await json<{ ledger: LedgerEntry[] }>(
          await fetch(`${await stack.systemUrl(system)}/__demo/ledger`),
          'ledger',
        )
      ).ledger;
    },
    async requests(system) {
      return (
        await json<{ requests: RequestLogEntry[] }>(
          await fetch(`${await stack.systemUrl(system)}/__demo/requests`),
          'requests',
        )
      ).requests;
    },
    async close() {
      for (const p of procs.reverse()) await p.stop(5_000).catch(() => undefined);
      await model.close();
      const hubKey = await install.hubSecretKey().catch(() => null);
      try {
        assertDataDirsPrivate([desk], {
          admin_token: adminToken,
          client_token: install.clientToken,
          model_key: modelEnv.BAILING_MODEL_API_KEY,
          ...(hubKey ? { hub_secret_key: hubKey } : {}),
          ...launchTokens,
        });
      } finally {
        await install.forget();
        if (!(opts.keep ?? process.env.BAILING_E2E_KEEP === '1'))
          rmSync(dir, { recursive: true, force: true });
      }
    },
  };
  return stack;
}
