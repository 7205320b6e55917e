/**
 * npm run bench:journal — invocation journal costs.
 *  1. Save latency p50/p99 per store (sqlite, file, memory) at 1, 100, 1,000 and 10,000 entries
 *     per record. Each measured save is what the runtime does after a response: one entry's state
 *     changes, every other entry is unchanged (a new record object sharing the unchanged entries).
 *  2. Status read time for 1,000 sessions (cold: first read loads each journal; warm: again).
 * Prints how the cost grows with the record size. SQLite runs with WAL + synchronous=FULL; the
 * file store fsyncs the temp file and the directory on every save.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createHubClient } from '../src-main/hub-client/index.js';
import {
  createFileInvocationStore,
  createMemoryInvocationStore,
  createSqliteInvocationStore,
  type InvocationStore,
  type JournalEntry,
  type JournalRecordV2,
} from '../src-main/journal/index.js';
import type { SessionScope } from '../src-main/runtime/invocation-ports.js';
import { createInvocationRuntime } from '../src-main/runtime/invocations/index.js';
import { createSqliteScopeStore } from '../src-main/runtime/scope/index.js';

const SIZES = [1, 100, 1_000, 10_000];
const root = mkdtempSync(join(tmpdir(), 'bailing-bench-journal-'));

function makeEntry(sessionId: string, i: number): JournalEntry {
  return {
    invocation_id: `inv_${sessionId}_${i.toString().padStart(6, '0')}_abcdefghijklmnop`,
    agent_session_id: sessionId,
    hub_id: 'hub_0123456789abcdef',
    client_id: 'client_desk',
    workspace_id: 'ws_default',
    connection_key: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
    scope_fingerprint: '5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef',
    scope_revision: 1,
    authorization_ref: i % 2 ? 'auth-shop-a' : 'auth-inventory',
    run_id: `run_${Math.floor(i / 10)}`,
    tool: 'update_product_content',
    declaration_revision: 'f76a773754064312f00e2e309277735088ec5a1a08d207ec95cb438a64338187',
    host_call_id: `call_${i}`,
    parameter_digest: 'a'.repeat(64),
    task_id: null,
    last_state: 'succeeded',
    receipt_digest: 'b'.repeat(64),
    retry_at: null,
  };
}

function pct(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}
const ms = (n: number) => `${n.toFixed(n < 1 ? 3 : 2)} ms`;

async function benchStore(name: string, store: InvocationStore, size: number, iterations: number) {
  const sessionId = `bench-${name}-${size}`;
  let record: JournalRecordV2 = {
    schema: 'bailing.agent-invocations.v2',
    sessionId,
    revision: 1,
    entries: Array.from({ length: size }, (_, i) => makeEntry(sessionId, i)),
  };
  record = (await store.save(sessionId, record, null)) as JournalRecordV2;
  const times: number[] = [];
  for (let k = 0; k < iterations; k++) {
    const idx = k % size;
    const changed: JournalEntry = { ...record.entries[idx]!, last_state: k % 2 ? 'succeeded' : 'unknown' };
    const entries = record.entries.slice();
    entries[idx] = changed;
    const next: JournalRecordV2 = { ...record, revision: record.revision + 1, entries };
    const t0 = performance.now();
    record = (await store.save(sessionId, next, record.revision)) as JournalRecordV2;
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  return { p50: pct(times, 50), p99: pct(times, 99), n: iterations };
}

async function main() {
  console.log('Invocation journal benchmark');
  console.log('SQLite: WAL, synchronous=FULL, entries as rows (a save writes the changed rows only).');
  console.log('File: whole record per save: write temp, fsync, rename, fsync directory, with a lock file.\n');
  const results: Record<string, Record<number, { p50: number; p99: number; n: number }>> = {};
  for (const name of ['sqlite', 'file', 'memory'] as const) {
    results[name] = {};
    for (const size of SIZES) {
      const dir = mkdtempSync(join(root, `${name}-${size}-`));
      const store =
        name === 'sqlite'
          ? createSqliteInvocationStore({ path: join(dir, 'j.sqlite') })
          : name === 'file'
            ? createFileInvocationStore({ directory: dir })
            : createMemoryInvocationStore();
      const iterations =
        name === 'file'
          ? size >= 10_000
            ? 20
            : size >= 1_000
              ? 60
              : 150
          : name === 'memory'
            ? size >= 10_000
              ? 30
              : 200
            : 200;
      results[name][size] = await benchStore(name, store, size, iterations);
      await store.close?.();
      const r = results[name][size]!;
      console.log(
        `${name.padEnd(7)} ${String(size).padStart(6)} entries/record: save p50 ${ms(r.p50).padStart(10)}  p99 ${ms(r.p99).padStart(10)}  (${r.n} saves)`,
      );
    }
  }
  console.log('\nGrowth of the save p50 from 1 to 10,000 entries per record:');
  for (const [name, r] of Object.entries(results)) {
    const g = r[10_000]!.p50 / r[1]!.p50;
    console.log(`  ${name.padEnd(7)} x${g.toFixed(1)}  (${SIZES.map((s) => ms(r[s]!.p50)).join(' -> ')})`);
  }

  // Status read time for 1,000 sessions (10 entries each), through the runtime, zero Hub requests.
  const dir = mkdtempSync(join(root, 'status-'));
  const store = createSqliteInvocationStore({ path: join(dir, 'journal.sqlite') });
  const scopes = createSqliteScopeStore({ path: join(dir, 'scopes.sqlite') });
  const SESSIONS = 1_000;
  for (let s = 0; s < SESSIONS; s++) {
    const sessionId = `s${s}`;
    const scope: SessionScope = {
      sessionId,
      hubId: 'hub_0123456789abcdef',
      clientId: 'client_desk',
      workspaceId: 'ws_default',
      connectionKey: 'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855',
      members: [
        { authorization_ref: 'auth-shop-a', authorization_revision: 1, system_id: 'shop-a', account: 'a' },
        {
          authorization_ref: 'auth-inventory',
          authorization_revision: 1,
          system_id: 'inventory',
          account: 'i',
        },
      ],
      fingerprint: '5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef',
      revision: 1,
      taskId: null,
    };
    await scopes.save(scope);
    await store.save(
      sessionId,
      {
        schema: 'bailing.agent-invocations.v2',
        sessionId,
        revision: 1,
        entries: Array.from({ length: 10 }, (_, i) => makeEntry(sessionId, i)),
      },
      null,
    );
  }
  store.close?.();
  // A Hub client pointing nowhere: status must not call it (any call would fail loudly below).
  let hubCalls = 0;
  const hub = createHubClient({
    baseUrl: 'http://127.0.0.1:9',
    token: 'unused',
    fetch: async () => {
      hubCalls += 1;
      throw new Error('status must not call the Hub');
    },
  });
  const runtime = createInvocationRuntime({
    hub,
    invocationStore: createSqliteInvocationStore({ path: join(dir, 'journal.sqlite') }),
    scopeStore: scopes,
  });
  for (const pass of ['cold', 'warm'] as const) {
    const t0 = performance.now();
    let ready = 0;
    for (let s = 0; s < SESSIONS; s++)
      if ((await runtime.getSessionInvocationStatus(`s${s}`)).state === 'ready') ready += 1;
    const total = performance.now() - t0;
    console.log(
      `\nstatus for ${SESSIONS} sessions (${pass}): ${ms(total)} total, ${ms(total / SESSIONS)} per session; ${ready} ready; Hub requests: ${hubCalls}`,
    );
  }
  scopes.close();
  rmSync(root, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  rmSync(root, { recursive: true, force: true });
  process.exit(1);
});
