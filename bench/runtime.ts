/**
 * npm run bench:runtime
 *
 * 1. Host overhead per governed call: the runtime's path (declaration-cache look-up, full-schema
 *    argument validation, journal fence saved with CAS in SQLite, Hub client invoke, receipt save)
 *    against the bare Hub call (Hub client invoke only), same Hub, same read tool, interleaved.
 * 2. Reopen time of a session with 1,000 archive events and 1,000 journal invocations: a fresh
 *    runtime on the data directory, `openSession` (archive load, scope load, whole-scope
 *    revalidation, journal status).
 * 3. Host overhead per model round trip: a chat turn on the runtime against the provider emulator
 *    with zero latency, against the bare openai SDK streaming the same request (./lib/model-round-trip.ts).
 * 4. Rebuilding the provider history of a 1,000-turn conversation (tool calls, reasoning sent back),
 *    as every model request does (./lib/history-rebuild.ts).
 * Real parts: demo systems, in-process Hub on SQLite, SQLite host stores. Prints a table and JSON.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { DEMO_CONFIG, startDemoSystems } from '../demo/index.js';
import { parameterDigest } from '../src-shared/digest.js';
import type { Declaration } from '../src-shared/hub-api.js';
import { createHub, type HubConfig } from '../src-hub/index.js';
import { createSqliteArchive } from '../src-main/archive/index.js';
import { createHubClient } from '../src-main/hub-client/index.js';
import { createSqliteInvocationStore, type JournalEntry } from '../src-main/journal/index.js';
import { createArgumentValidator } from '../src-main/runtime/argument-validation.js';
import { createDeclarationCache } from '../src-main/runtime/declaration-cache.js';
import { createDeskRuntimeFromDataDir } from '../src-main/runtime/from-data-dir.js';
import { createInvocationRuntime } from '../src-main/runtime/invocations/index.js';
import { buildScope } from '../src-main/runtime/scope-builder.js';
import { createSqliteScopeStore } from '../src-main/runtime/scope/index.js';
import { measureHistoryRebuild } from './lib/history-rebuild.js';
import { benchIdsLabel, benchInvocationId } from './lib/invocation-ids.js';
import { measureModelRoundTrip } from './lib/model-round-trip.js';

const CALLS = Number(process.env.BENCH_CALLS ?? 200);
const EVENTS = 1_000;
const INVOCATIONS = 1_000;
const REOPENS = 5;
const MODEL_TURNS = Number(process.env.BENCH_MODEL_TURNS ?? 100);
const HISTORY_TURNS = 1_000;
const HISTORY_REPS = 30;

function stats(samples: number[]) {
  const s = [...samples].sort((a, b) => a - b);
  const q = (p: number) => s[Math.min(s.length - 1, Math.floor(p * s.length))] ?? NaN;
  return { n: s.length, median: q(0.5), p95: q(0.95), mean: s.reduce((a, b) => a + b, 0) / s.length };
}
const ms = (x: number) => `${x.toFixed(2)} ms`;

const demo = await startDemoSystems();
const hubDir = mkdtempSync(join(tmpdir(), 'bench-rt-hub-'));
const hostDir = mkdtempSync(join(tmpdir(), 'bench-rt-host-'));
const clientId = 'bench';
const token = `bdc_${clientId}.${randomBytes(24).toString('base64url')}`;
const handles = { 'shop-a': demo.shopA, 'shop-b': demo.shopB, inventory: demo.inventory } as const;
const config: HubConfig = {
  systems: DEMO_CONFIG.systems.map((s) => ({
    system_id: s.system_id,
    name: s.name,
    base_url: handles[s.system_id as keyof typeof handles].url,
    signing_secret: handles[s.system_id as keyof typeof handles].secret,
  })),
  clients: [{ client_id: clientId, name: clientId, token }],
  authorizations: DEMO_CONFIG.systems.map((s) => ({
    authorization_ref: s.authorization_ref,
    system_id: s.system_id,
    account: s.account,
    on_behalf_of: DEMO_CONFIG.on_behalf_of,
    grant_to: [clientId],
  })),
};
const hub = await createHub({ dataDir: hubDir, config });
const client = createHubClient({ baseUrl: hub.url, token, hubId: hub.hubId });
const conn = { hubUrl: hub.url, hubId: hub.hubId, clientId, workspaceId: 'default' };

try {
  // ---------- 1. overhead per governed call ----------
  const authorizations = await client.listAuthorizations();
  const declarations = (
    await client.searchTools({ query: 'get product', authorization_refs: ['auth-shop-a'], limit: 50 })
  ).declarations;
  const decl = declarations.find((d) => d.tool === 'get_product') as Declaration;
  const scopeStore = createSqliteScopeStore({ path: join(hostDir, 'scopes.sqlite') });
  const invocationStore = createSqliteInvocationStore({ path: join(hostDir, 'invocations.sqlite') });
  const invocations = createInvocationRuntime({
    hub: client,
    invocationStore,
    scopeStore,
    newId: benchInvocationId,
  });
  const sessionId = `ses_bench_${randomUUID()}`;
  const scope = buildScope(sessionId, conn, ['auth-shop-a'], authorizations, null);
  await scopeStore.save(scope);
  const cache = createDeclarationCache();
  const [cached] = cache.put([decl]);
  const validator = createArgumentValidator();
  const run = await client.createRun({
    agent_session_id: sessionId,
    turn_id: 'bench-turn',
    authorization_ref: 'auth-shop-a',
  });
  const bareRun = await client.createRun({
    agent_session_id: 'bare',
    turn_id: 'bench-turn',
    authorization_ref: 'auth-shop-a',
  });
  const hostSamples: number[] = [];
  const bareSamples: number[] = [];
  const args = { product_id: 42 };
  for (let i = 0; i < CALLS + 10; i++) {
    // host path
    let t = performance.now();
    const entry = cache.byFunctionName(cached!.functionName);
    if (!entry || !validator.check(entry.key, entry.declaration, args).ok)
      throw new Error('cache/validation failed');
    const out = await invocations.invokeGoverned(
      { sessionId, scope, turnId: 'bench-turn' },
      {
        declaration: entry.declaration,
        arguments: args,
        runId: run.run_id,
        turnId: 'bench-turn',
        hostCallId: `bench-${i}`,
      },
    );
    if (out.kind !== 'receipt' || out.receipt.state !== 'succeeded')
      throw new Error(`host call failed: ${JSON.stringify(out)}`);
    const host = performance.now() - t;
    // bare Hub call
    t = performance.now();
    const r = await client.invoke({
      invocation_id: benchInvocationId(),
      run_id: bareRun.run_id,
      authorization_ref: 'auth-shop-a',
      tool: 'get_product',
      declaration_revision: decl.declaration_revision,
      arguments: args,
      host_call_id: `bare-${i}`,
    });
    if (r.state !== 'succeeded') throw new Error('bare call failed');
    const bare = performance.now() - t;
    if (i >= 10) {
      hostSamples.push(host);
      bareSamples.push(bare);
    }
  }
  const h = stats(hostSamples);
  const b = stats(bareSamples);

  // ---------- 2. reopen a session of 1,000 events and 1,000 invocations ----------
  const bigSession = `ses_bench_big_${randomUUID()}`;
  const bigScope = buildScope(
    bigSession,
    conn,
    ['auth-shop-a', 'auth-shop-b', 'auth-inventory'],
    authorizations,
    null,
  );
  await scopeStore.save(bigScope);
  const archive = createSqliteArchive({ file: join(hostDir, 'archive.sqlite') });
  archive.upsertSession({
    sessionId: bigSession,
    title: 'big',
    createdAt: new Date().toISOString(),
    updatedAt: new Date().toISOString(),
    settings: { reuseDeclarations: true },
  });
  const now = () => new Date().toISOString();
  archive.append(bigSession, {
    eventId: randomUUID(),
    turnId: null,
    at: now(),
    kind: 'session_created',
    payload: { title: 'big', members: bigScope.members, taskId: null },
  });
  for (let i = 1; i < EVENTS; i++) {
    const turnId = `turn-${Math.floor(i / 4)}`;
    const k = i % 4;
    const payload =
      k === 1
        ? { kind: 'user_message', text: `Please edit product ${i}` }
        : k === 2
          ? { kind: 'assistant_message', messageId: `m${i}`, text: '', finish: 'tool_calls' }
          : k === 3
            ? {
                kind: 'tool_call',
                callId: `c${i}`,
                functionName: 'auth_shop_a__get_product',
                argumentsText: '{"product_id":42}',
                target: null,
              }
            : {
                kind: 'tool_result',
                callId: `c${i - 1}`,
                functionName: 'auth_shop_a__get_product',
                content: '{"state":"succeeded"}',
                feedback: null,
                invocation_id: null,
              };
    const { kind, ...rest } = payload;
    archive.append(bigSession, { eventId: randomUUID(), turnId, at: now(), kind, payload: rest });
  }
  archive.close();
  const entries: JournalEntry[] = Array.from({ length: INVOCATIONS }, (_, i) => ({
    invocation_id: benchInvocationId(),
    agent_session_id: bigSession,
    hub_id: bigScope.hubId,
    client_id: bigScope.clientId,
    workspace_id: bigScope.workspaceId,
    connection_key: bigScope.connectionKey,
    scope_fingerprint: bigScope.fingerprint,
    scope_revision: bigScope.revision,
    authorization_ref: 'auth-shop-a',
    run_id: `run_${i}`,
    tool: 'update_product_content',
    declaration_revision: decl.declaration_revision,
    host_call_id: `call-${i}`,
    parameter_digest: parameterDigest({ product_id: 42, description: `d${i}` }),
    task_id: null,
    last_state: i % 10 === 0 ? 'unknown' : 'succeeded',
    receipt_digest: null,
    retry_at: null,
  }));
  await invocationStore.save(
    bigSession,
    { schema: 'bailing.agent-invocations.v2', sessionId: bigSession, revision: 1, entries },
    null,
  );
  scopeStore.close();
  await invocationStore.close?.();

  const reopenSamples: number[] = [];
  let lastCounts = { events: 0, entries: 0 };
  for (let i = 0; i < REOPENS; i++) {
    const { runtime } = await createDeskRuntimeFromDataDir({
      dataDir: hostDir,
      hubUrl: hub.url,
      hubToken: token,
      hubId: hub.hubId,
      clientId,
      modelSettings: { get: async () => ({ baseUrl: 'http://127.0.0.1:9/v1', model: 'none', apiKey: null }) },
    });
    const t = performance.now();
    const opened = await runtime.openSession(bigSession);
    reopenSamples.push(performance.now() - t);
    lastCounts = { events: opened.events.length, entries: opened.journal.entries.length };
    if (opened.session.availability !== 'open')
      throw new Error(`reopened session is ${opened.session.availability}`);
    await runtime.close();
  }
  const r = stats(reopenSamples);

  // ---------- 3. host overhead per model round trip ----------
  const trip = await measureModelRoundTrip({
    hubUrl: hub.url,
    hubToken: token,
    hubId: hub.hubId,
    clientId,
    turns: MODEL_TURNS,
    warmup: 5,
  });
  const mh = stats(trip.host);
  const mb = stats(trip.bare);

  // ---------- 4. rebuilding the provider history of 1,000 turns ----------
  const rebuild = measureHistoryRebuild(HISTORY_TURNS, HISTORY_REPS);
  const hr = stats(rebuild.samples);

  console.log(`\nHost runtime benchmark (real Hub + demo shop, SQLite host stores; ${benchIdsLabel()})\n`);
  console.log(`governed call, host path   median ${ms(h.median)}  p95 ${ms(h.p95)}  (n=${h.n})`);
  console.log(`bare Hub invoke            median ${ms(b.median)}  p95 ${ms(b.p95)}  (n=${b.n})`);
  console.log(`host overhead per call     median ${ms(h.median - b.median)}  mean ${ms(h.mean - b.mean)}`);
  console.log(
    `reopen (${lastCounts.events} events, ${lastCounts.entries} invocations)  median ${ms(r.median)}  max ${ms(Math.max(...reopenSamples))}  (n=${r.n})`,
  );
  console.log(
    `model turn, host path      median ${ms(mh.median)}  p95 ${ms(mh.p95)}  (n=${mh.n}, emulator, zero latency)`,
  );
  console.log(`bare SDK round trip        median ${ms(mb.median)}  p95 ${ms(mb.p95)}  (same request)`);
  console.log(
    `host overhead per model round trip  median ${ms(mh.median - mb.median)}  mean ${ms(mh.mean - mb.mean)}`,
  );
  console.log(
    `provider history of ${HISTORY_TURNS} turns (${rebuild.messages} messages kept)  median ${ms(hr.median)}  p95 ${ms(hr.p95)}  (n=${hr.n})`,
  );
  console.log(
    JSON.stringify({
      bench: 'runtime',
      model_turn_host_ms: mh,
      model_round_trip_bare_ms: mb,
      model_overhead_median_ms: mh.median - mb.median,
      history_rebuild_1000_turns_ms: hr,
      history_messages_kept: rebuild.messages,
      governed_call_ms: h,
      bare_hub_call_ms: b,
      overhead_median_ms: h.median - b.median,
      reopen_ms: r,
      reopen_events: lastCounts.events,
      reopen_invocations: lastCounts.entries,
    }),
  );
} finally {
  await hub.close();
  await demo.close();
  rmSync(hubDir, { recursive: true, force: true });
  rmSync(hostDir, { recursive: true, force: true });
}
