/**
 * Default wiring on a data directory: SQLite archive, scope store and invocation journal side by
 * side (one durable, access-controlled area), the Hub client and the InvocationRuntime, and the
 * openai-SDK model client. The Hub token and model key are passed in and never written anywhere.
 *
 *   <dataDir>/archive.sqlite      conversation events
 *   <dataDir>/scopes.sqlite       fixed session scopes
 *   <dataDir>/invocations.sqlite  invocation journal, bailing.agent-invocations.v2
 */
import { ensurePrivateDir } from '../../src-shared/private-files.js';
import { join } from 'node:path';
import { createSqliteArchive } from '../archive/index.js';
import { createHubClient, type HubClient } from '../hub-client/index.js';
import { createSqliteInvocationStore } from '../journal/index.js';
import { createInvocationRuntime } from './invocations/index.js';
import { createSqliteScopeStore } from './scope/index.js';
import { createDeskRuntime, type DeskRuntimeDeps } from './create-desk-runtime.js';
import type { DeskRuntime, ModelSettingsProvider } from './desk-runtime.js';

export interface DataDirRuntimeOptions {
  dataDir: string;
  hubUrl: string;
  hubToken: string;
  /** The Hub's id (GET /health `hub_id`). When omitted it is read once from /health at start. */
  hubId?: string;
  clientId: string;
  workspaceId?: string;
  modelSettings: ModelSettingsProvider;
  /** Other secret values to keep out of the archive (e.g. the model API key from the keychain). */
  secrets?: () => readonly string[];
  overrides?: Partial<
    Pick<
      DeskRuntimeDeps,
      'cache' | 'maxModelRequestsPerTurn' | 'clock' | 'ids' | 'model' | 'systemPromptExtra'
    >
  >;
}

export interface DataDirRuntime {
  runtime: DeskRuntime;
  hubClient: HubClient;
}

export async function createDeskRuntimeFromDataDir(opts: DataDirRuntimeOptions): Promise<DataDirRuntime> {
  ensurePrivateDir(opts.dataDir);
  const hubClient = createHubClient({
    baseUrl: opts.hubUrl,
    token: opts.hubToken,
    ...(opts.hubId ? { hubId: opts.hubId } : {}),
  });
  let hubId = opts.hubId;
  if (!hubId) {
    const health = await hubClient.health();
    if (typeof health.hub_id !== 'string') throw new Error('the Hub did not report its hub_id');
    hubId = health.hub_id;
  }
  // The model API key is a secret wherever it came from (keychain, environment): every key the
  // provider hands out is masked too, also when the caller's own `secrets` list misses it. Read once
  // at start so a key configured before launch is masked from the very first message.
  const modelKeys = new Set<string>();
  const modelSettings: ModelSettingsProvider = {
    async get() {
      const s = await opts.modelSettings.get();
      if (typeof s.apiKey === 'string' && s.apiKey.length > 0) modelKeys.add(s.apiKey);
      return s;
    },
  };
  try {
    await modelSettings.get();
  } catch {
    // not configured yet: the first turn reports it
  }
  const secrets = () => [opts.hubToken, ...(opts.secrets?.() ?? []), ...modelKeys];
  // A short busy timeout: better-sqlite3 waits synchronously, and a locked archive must surface as storage_error quickly.
  const archive = createSqliteArchive({
    file: join(opts.dataDir, 'archive.sqlite'),
    secrets,
    busyTimeoutMs: 500,
  });
  const scopeStore = createSqliteScopeStore({ path: join(opts.dataDir, 'scopes.sqlite') });
  // Same reason for the journal: a locked file must become storage_error (nothing sent) without
  // freezing the process for the 5 s default.
  const invocationStore = createSqliteInvocationStore({
    path: join(opts.dataDir, 'invocations.sqlite'),
    busyTimeoutMs: 1000,
  });
  const invocations = createInvocationRuntime({
    hub: hubClient,
    invocationStore,
    scopeStore,
  });
  const runtime = createDeskRuntime({
    hub: hubClient,
    invocations,
    archive,
    scopeStore,
    connection: {
      hubUrl: opts.hubUrl,
      hubId,
      clientId: opts.clientId,
      workspaceId: opts.workspaceId ?? 'default',
    },
    modelSettings,
    secrets,
    ...opts.overrides,
    async onClose() {
      archive.close();
      scopeStore.close();
      await invocationStore.close?.();
    },
  });
  return { runtime, hubClient };
}
