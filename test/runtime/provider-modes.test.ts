/**
 * The desk's runtime, unchanged, against the strict provider emulator in each of its modes: a
 * two-tool-call business turn (two searches, then the edit of Shop A's product 42 and an SKU
 * look-up as parallel calls) completes, the write reaches Shop A exactly once, the provider gets
 * back exactly its own tool-call ids and (DeepSeek, Qwen) its reasoning, and nothing the emulator
 * refuses is ever sent. Real Hub, demo systems, SQLite stores, the openai SDK.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDeskRuntimeFromDataDir } from '../../src-main/runtime/from-data-dir.js';
import type {
  ArchiveEvent,
  DeskRuntime,
  ModelSettings,
  RuntimeEvent,
} from '../../src-main/runtime/desk-runtime.js';
import {
  MID_STREAM_ERROR,
  startProviderEmulator,
  type ProviderEmulator,
  type ProviderMode,
} from '../../demo/provider-emulator/index.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir } from './fixtures/runtime.js';
import {
  businessScript,
  checkCallIdentities,
  EDIT_FN,
  emulatorSettings,
  MODE_QUIRKS,
  PROVIDER_KEY,
  toolCallEvents,
} from './fixtures/provider-turn.js';

let env: RuntimeTestEnv;
const emulators: ProviderEmulator[] = [];
const runtimes: DeskRuntime[] = [];
beforeAll(async () => {
  env = await startRuntimeTestEnv();
});
afterAll(async () => {
  for (const r of runtimes) await r.close().catch(() => undefined);
  for (const e of emulators) await e.close();
  await env?.close();
});

async function deskOn(settings: ModelSettings, dataDir = newDataDir()) {
  const events: RuntimeEvent[] = [];
  const { runtime } = await createDeskRuntimeFromDataDir({
    dataDir,
    hubUrl: env.proxy.url,
    hubToken: env.clientToken,
    hubId: env.hub.hubId,
    clientId: env.clientId,
    modelSettings: { get: async () => settings },
    secrets: () => [PROVIDER_KEY],
  });
  runtimes.push(runtime);
  runtime.subscribe((e) => events.push(e));
  return { runtime, events, dataDir };
}

async function emulator(modes: ProviderMode[], tag: string, description: string) {
  const emu = await startProviderEmulator({
    modes,
    apiKey: PROVIDER_KEY,
    script: businessScript(tag, description),
  });
  emulators.push(emu);
  return emu;
}

const writesTo42 = () => env.demo.shopA.ledger().filter((l) => l.target === 'product:42');

async function businessTurn(mode: ProviderMode) {
  const tag = `turn-${mode}`;
  const description = `Walnut board (${mode}), end grain, 40 x 30 cm.`;
  const emu = await emulator([mode], tag, description);
  const desk = await deskOn(emulatorSettings(emu, MODE_QUIRKS[mode]));
  const s = await desk.runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
  const before = writesTo42().length;
  const turn = await desk.runtime.sendMessage(
    s.sessionId,
    `Please do ${tag}: change the description of product 42.`,
  );
  const events = await desk.runtime.archiveEvents(s.sessionId);
  const writes = writesTo42().slice(before);
  return { tag, description, emu, desk, session: s, turn, events, writes };
}

function expectOneWrite(
  writes: ReturnType<typeof writesTo42>,
  description: string,
  events: readonly ArchiveEvent[],
) {
  expect(writes).toHaveLength(1);
  expect(writes[0]?.changes.description?.after).toBe(description);
  // The business idempotency key is the invocation id the desk recorded for the edit.
  const result = events.find((e) => e.kind === 'tool_result' && e.functionName === EDIT_FN);
  expect(result && result.kind === 'tool_result' && result.invocation_id).toBe(writes[0]?.idempotency_key);
  expect(result && result.kind === 'tool_result' && result.state).toBe('succeeded');
}

describe('a two-tool-call business turn in every strict mode', () => {
  for (const mode of [
    'openai-strict',
    'names-repeated',
    'parallel-interleaved',
    'non-streaming',
    'ids-missing',
  ] as const)
    it(`${mode}: completes, one write, the provider's own ids go back`, async () => {
      const r = await businessTurn(mode);
      expect(r.turn).toMatchObject({
        outcome: 'completed',
        error: null,
        text: 'Updated product 42; its SKU is SKU-A-0042.',
      });
      expect(r.emu.refusals()).toEqual([]);
      expect(r.emu.requests()).toHaveLength(3);
      expect(r.emu.requests().every((q) => q.stream === (mode !== 'non-streaming'))).toBe(true);
      expectOneWrite(r.writes, r.description, r.events);
      await checkCallIdentities({
        emu: r.emu,
        events: r.events,
        turnId: r.turn.turnId,
        dataDir: r.desk.dataDir,
        sessionId: r.session.sessionId,
        providerGaveIds: mode !== 'ids-missing',
      });
      // Usage per turn where the provider reports it (the usage chunk, or the whole completion's).
      const ended = r.events.find((e) => e.kind === 'turn_ended');
      expect(ended && ended.kind === 'turn_ended' && ended.usage?.requests).toBe(3);
      // The model chose the edit with the shop's guidance in front of it.
      const offered = r.emu.requests()[1]?.tools.find((t) => t.function.name === EDIT_FN)
        ?.function.description;
      expect(offered).toContain('When to use: only the title or description of a product should change');
      expect(offered).toContain('Restrictions: price, stock, currency and status are refused by the shop');
    });

  it('deepseek-thinking: reasoning is archived per message and sent back in the tool-call turn (else 400)', async () => {
    const r = await businessTurn('deepseek-thinking');
    expect(r.turn.outcome).toBe('completed');
    expect(r.emu.refusals()).toEqual([]);
    expectOneWrite(r.writes, r.description, r.events);
    await checkCallIdentities({
      emu: r.emu,
      events: r.events,
      turnId: r.turn.turnId,
      dataDir: r.desk.dataDir,
      sessionId: r.session.sessionId,
      providerGaveIds: true,
    });
    const assistants = r.events.filter((e) => e.kind === 'assistant_message');
    expect(assistants).toHaveLength(3);
    for (const a of assistants) {
      expect(a.kind === 'assistant_message' && a.reasoning?.field).toBe('reasoning_content');
      expect(a.kind === 'assistant_message' && a.reasoning?.text).toContain('The operator asked');
    }
    // The third request carried both earlier assistant messages with their reasoning, exactly.
    const third = r.emu.requests()[2];
    const sent = third?.messages.filter((m) => m.role === 'assistant') as { reasoning_content?: string }[];
    expect(sent.map((m) => m.reasoning_content)).toEqual(
      assistants.slice(0, 2).map((a) => (a.kind === 'assistant_message' ? a.reasoning?.text : null)),
    );
    // Streamed reasoning was shown live, on its own channel, before the answer.
    expect(r.desk.events.some((e) => e.type === 'message.delta' && e.channel === 'reasoning')).toBe(true);
    // A later turn without tool calls still sends the tool-call turn's reasoning back (DeepSeek's rule).
    const later = await r.desk.runtime.sendMessage(r.session.sessionId, `Did ${r.tag} work?`);
    expect(later.outcome).toBe('completed');
    expect(r.emu.refusals()).toEqual([]);
    expect(writesTo42().length).toBeGreaterThan(0);
  });

  it('qwen-thinking: streamed reasoning archived; non-streaming requests turn thinking off', async () => {
    const r = await businessTurn('qwen-thinking');
    expect(r.turn.outcome).toBe('completed');
    expect(r.emu.refusals()).toEqual([]);
    expectOneWrite(r.writes, r.description, r.events);
    const first = r.events.find((e) => e.kind === 'assistant_message');
    expect(first?.kind === 'assistant_message' && first.reasoning?.text).toContain(
      'I will call search_tools',
    );
    // The same provider set to whole completions: the desk says enable_thinking false, so Qwen accepts it.
    const tag = 'turn-qwen-whole';
    const emu = await emulator(['qwen-thinking'], tag, 'Qwen whole completion description.');
    const desk = await deskOn(emulatorSettings(emu, { ...MODE_QUIRKS['qwen-thinking'], stream: false }));
    const s = await desk.runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
    const turn = await desk.runtime.sendMessage(
      s.sessionId,
      `Please do ${tag}: change the description of product 42.`,
    );
    expect(turn.outcome).toBe('completed');
    expect(emu.refusals()).toEqual([]);
    expect(emu.requests().map((q) => q.params.enable_thinking)).toEqual([false, false, false]);
  });

  it('retry-after: the 429 is waited out as the provider asked (shown as a retry), then the turn completes', async () => {
    const r = await businessTurn('retry-after');
    expect(r.turn.outcome).toBe('completed');
    expect(r.emu.requests().map((q) => q.status)).toEqual([429, 200, 200, 200]);
    expectOneWrite(r.writes, r.description, r.events);
    const retries = r.events.filter((e) => e.kind === 'model_retry');
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({
      attempt: 1,
      waitMs: 2000,
      reason: 'rate_limited',
      status: 429,
      fromProvider: true,
    });
    const waited = Date.parse(r.emu.requests()[1]?.at ?? '') - Date.parse(r.emu.requests()[0]?.at ?? '');
    expect(waited).toBeGreaterThanOrEqual(1900);
  });

  it('error-mid-stream: the partial reply is kept as interrupted with why, its calls never run; the next message completes', async () => {
    const r = await businessTurn('error-mid-stream');
    // The reply that was making the two calls broke off mid-stream: none of its calls ran.
    expect(r.turn.outcome).toBe('failed');
    expect([r.turn.error, r.turn.detail]).toEqual(['model_stream_interrupted', MID_STREAM_ERROR]);
    expect(r.writes).toEqual([]);
    expect(toolCallEvents(r.events).map((c) => c.functionName)).toEqual(['search_tools', 'search_tools']);
    const last = r.events.filter((e) => e.kind === 'assistant_message').at(-1);
    expect(last).toMatchObject({
      finish: 'interrupted',
      text: 'Editing the de',
      interruption: { code: 'model_stream_interrupted', detail: MID_STREAM_ERROR },
    });
    expect(r.events.filter((e) => e.kind === 'model_retry')).toEqual([]); // text had arrived: never retried
    // The operator asks again: the history with the interrupted reply is accepted, the turn completes.
    const tag = 'again-error-mid-stream';
    r.emu.setScript(businessScript(tag, r.description));
    const before = writesTo42().length;
    const next = await r.desk.runtime.sendMessage(
      r.session.sessionId,
      `Please do ${tag}: change the description of product 42.`,
    );
    expect(next.outcome).toBe('completed');
    expect(r.emu.refusals()).toEqual([]);
    const events = await r.desk.runtime.archiveEvents(r.session.sessionId);
    expectOneWrite(
      writesTo42().slice(before),
      r.description,
      events.filter((e) => e.turnId === next.turnId),
    );
  });
});
