/**
 * Retries of model requests only, against the strict provider emulator: a 429 storm after the
 * model asked for a business write never repeats the write (the demo ledger counts it), waits are
 * the provider's own (retry-after-ms / retry-after) or a bounded backoff, each is recorded and
 * shown, Stop cuts a wait short, and 401/404 end the turn at once with a code. A stream that goes
 * silent is ended by the client's idle bound: retried if nothing had arrived, else the turn ends
 * with a code and the text shown so far is kept.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderEmulator, type ProviderEmulator } from '../../demo/provider-emulator/index.js';
import { createDeskRuntimeFromDataDir } from '../../src-main/runtime/from-data-dir.js';
import { createModelClient, type ModelClientOptions } from '../../src-main/runtime/model-client.js';
import { ModelStreamStalledError } from '../../src-main/runtime/model/model-errors.js';
import type { DeskRuntime, ModelSettings, RuntimeEvent } from '../../src-main/runtime/desk-runtime.js';
import type { RetryPolicy } from '../../src-main/runtime/model/retry-policy.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir } from './fixtures/runtime.js';
import {
  businessScript,
  EDIT_FN,
  emulatorSettings,
  MODE_QUIRKS,
  PROVIDER_KEY,
} from './fixtures/provider-turn.js';

let env: RuntimeTestEnv;
const closers: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  env = await startRuntimeTestEnv();
});
afterAll(async () => {
  for (const c of closers.reverse()) await c().catch(() => undefined);
  await env?.close();
});

async function setUp(
  tag: string,
  retry: Partial<RetryPolicy> = {},
  settings?: (e: ProviderEmulator) => ModelSettings,
  client: Omit<ModelClientOptions, 'retry'> = {},
) {
  const description = `Storm-proof description (${tag}).`;
  const emu = await startProviderEmulator({
    modes: ['openai-strict'],
    apiKey: PROVIDER_KEY,
    script: businessScript(tag, description),
  });
  closers.push(() => emu.close());
  const s = settings ? settings(emu) : emulatorSettings(emu, MODE_QUIRKS['openai-strict']);
  const provider = { get: async () => s };
  const events: RuntimeEvent[] = [];
  const { runtime } = await createDeskRuntimeFromDataDir({
    dataDir: newDataDir(),
    hubUrl: env.proxy.url,
    hubToken: env.clientToken,
    hubId: env.hub.hubId,
    clientId: env.clientId,
    modelSettings: provider,
    secrets: () => [PROVIDER_KEY],
    overrides: { model: createModelClient(provider, { ...client, retry }) },
  });
  closers.push(() => runtime.close());
  runtime.subscribe((e) => events.push(e));
  const session = await runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
  const ask = (text = `Please do ${tag}: change the description of product 42.`) =>
    runtime.sendMessage(session.sessionId, text);
  return { emu, runtime: runtime as DeskRuntime, events, session, ask, description };
}

const writesWith = (description: string) =>
  env.demo.shopA.ledger().filter((l) => l.changes.description?.after === description);

async function until<T>(fn: () => T | null | undefined | false, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('429 storm after the model asked for a write', () => {
  it('retried within bounds: the turn completes, the write was dispatched exactly once', async () => {
    const t = await setUp('storm-short');
    t.emu.failNext({
      kind: 'rate_limit',
      times: 3,
      retryAfterMs: 40,
      match: { afterToolResultFor: EDIT_FN },
    });
    const invokesBefore = (await env.hubMetrics()).invokes;
    const turn = await t.ask();
    expect(turn.outcome).toBe('completed');
    expect(t.emu.requests().map((q) => q.status)).toEqual([200, 200, 429, 429, 429, 200]);
    expect(writesWith(t.description)).toHaveLength(1);
    expect((await env.hubMetrics()).invokes - invokesBefore).toBe(2); // the edit and the SKU read, once each
    const events = await t.runtime.archiveEvents(t.session.sessionId);
    expect(events.filter((e) => e.kind === 'tool_result' && e.functionName === EDIT_FN)).toHaveLength(1);
    const retries = events.filter((e) => e.kind === 'model_retry');
    expect(
      retries.map((r) => (r.kind === 'model_retry' ? [r.attempt, r.waitMs, r.fromProvider] : null)),
    ).toEqual([
      [1, 40, true],
      [2, 40, true],
      [3, 40, true],
    ]);
  });

  it('longer than the retries allow: the turn fails rate-limited, the write stays one, the next message goes on', async () => {
    const t = await setUp('storm-long');
    t.emu.failNext({
      kind: 'rate_limit',
      times: 12,
      retryAfterMs: 20,
      match: { afterToolResultFor: EDIT_FN },
    });
    const turn = await t.ask();
    expect(turn.outcome).toBe('failed');
    expect(turn.error).toBe('model_rate_limited');
    expect(turn.detail).toMatch(/^Rate limit reached .* after 4 retries/);
    expect(t.emu.requests().filter((q) => q.status === 429)).toHaveLength(5);
    expect(writesWith(t.description)).toHaveLength(1);
    const again = await t.ask(`Did storm-long work?`);
    expect(again.outcome).toBe('completed');
    expect(writesWith(t.description)).toHaveLength(1);
    expect(t.emu.refusals().every((r) => r.refusedBy === 'rate-limit')).toBe(true);
  });

  it('a wait longer than the bound ends at once, saying how long the provider wanted', async () => {
    const t = await setUp('storm-far');
    t.emu.failNext({
      kind: 'rate_limit',
      times: 1,
      retryAfterSeconds: 120,
      match: { afterToolResultFor: EDIT_FN },
    });
    const turn = await t.ask();
    expect(turn.outcome).toBe('failed');
    expect(turn.error).toBe('model_rate_limited');
    expect(turn.detail).toContain('the provider asked to wait 120 s');
    expect(writesWith(t.description)).toHaveLength(1);
    expect(t.events.filter((e) => e.type === 'archive.event' && e.event.kind === 'model_retry')).toEqual([]);
  });

  it('Stop during a wait ends the turn at once; nothing more is asked of the provider', async () => {
    const t = await setUp('storm-stop');
    t.emu.failNext({
      kind: 'rate_limit',
      times: 1,
      retryAfterSeconds: 50,
      match: { afterToolResultFor: EDIT_FN },
    });
    const running = t.ask();
    await until(() => t.events.find((e) => e.type === 'archive.event' && e.event.kind === 'model_retry'));
    const asked = t.emu.requests().length;
    await t.runtime.cancelTurn(t.session.sessionId);
    const turn = await running;
    expect(turn.outcome).toBe('cancelled');
    expect(t.emu.requests()).toHaveLength(asked);
    expect(writesWith(t.description)).toHaveLength(1);
  });
});

describe('other failures of a model request', () => {
  it('503 then success: retried with our own backoff (not a provider wait)', async () => {
    const t = await setUp('unavailable', { baseDelayMs: 5 });
    t.emu.failNext({ kind: 'server_unavailable', times: 2, status: 503 });
    const turn = await t.ask();
    expect(turn.outcome).toBe('completed');
    const retries = (await t.runtime.archiveEvents(t.session.sessionId)).filter(
      (e) => e.kind === 'model_retry',
    );
    expect(retries.map((r) => r.kind === 'model_retry' && [r.reason, r.status, r.fromProvider])).toEqual([
      ['server_error', 503, false],
      ['server_error', 503, false],
    ]);
  });

  it('401 (wrong key), 404 (no such model) and 403 (forbidden) fail at once with a code, no retry, nothing run', async () => {
    const wrongKey = await setUp('bad-key', {}, (e) => ({
      ...emulatorSettings(e, MODE_QUIRKS['openai-strict']),
      apiKey: 'sk-not-the-right-key-000',
    }));
    const a = await wrongKey.ask();
    expect(a.outcome).toBe('failed');
    expect(a.error).toBe('model_auth_failed');
    expect(a.detail).toMatch(/^Incorrect API key provided/);
    expect(wrongKey.emu.requests()).toHaveLength(1);
    const noModel = await setUp('no-model', {}, (e) => ({
      ...emulatorSettings(e, MODE_QUIRKS['openai-strict']),
      model: 'gpt-missing',
    }));
    const b = await noModel.ask();
    expect(b.error).toBe('model_not_found');
    expect(b.detail).toMatch(/^The model `gpt-missing` does not exist/);
    expect(noModel.emu.requests()).toHaveLength(1);
    expect(writesWith(noModel.description)).toEqual([]);
    const forbidden = await setUp('forbidden');
    forbidden.emu.setScript([
      {
        match: { userIncludes: 'forbidden' },
        reply: { httpError: { status: 403, message: 'This key may not use the model.' } },
      },
    ]);
    const c = await forbidden.ask();
    expect([c.outcome, c.error, c.detail]).toEqual([
      'failed',
      'model_forbidden',
      'This key may not use the model.',
    ]);
    expect(forbidden.emu.requests()).toHaveLength(1);
  });

  it('a provider that cannot be reached: retried with backoff, then model_unreachable', async () => {
    const t = await setUp('unreachable', { baseDelayMs: 5, maxDelayMs: 20 });
    await t.emu.close();
    const turn = await t.ask();
    expect(turn.outcome).toBe('failed');
    expect(turn.error).toBe('model_unreachable');
    expect(turn.detail).toMatch(/ after 4 retries$/);
    const retries = (await t.runtime.archiveEvents(t.session.sessionId)).filter(
      (e) => e.kind === 'model_retry',
    );
    expect(retries.map((r) => r.kind === 'model_retry' && r.reason)).toEqual([
      'connection',
      'connection',
      'connection',
      'connection',
    ]);
  });
});

describe('a stream that goes silent', () => {
  // generous, so a loaded machine pausing this process never looks like a silent provider
  const IDLE_MS = 1_500;

  it('after some text: ended at the idle bound, the turn fails with a code, the text shown so far is kept, no call runs', async () => {
    const t = await setUp('stall-mid', {}, undefined, { streamIdleMs: IDLE_MS });
    t.emu.failNext({ kind: 'stall_stream', afterChars: 14 });
    const turn = await t.ask();
    expect(turn.outcome).toBe('failed');
    expect([turn.error, turn.detail]).toEqual([
      'model_stream_interrupted',
      new ModelStreamStalledError(IDLE_MS).message,
    ]);
    // the silent request was the one making the edit: it was ended by the desk, never retried
    const requests = t.emu.requests();
    expect(requests).toHaveLength(2);
    await until(() => t.emu.requests()[1]?.clientClosedEarly, 5_000); // the desk closed the silent stream
    expect(writesWith(t.description)).toEqual([]);
    const shown = t.events
      .filter((e) => e.type === 'message.delta' && e.channel !== 'reasoning')
      .map((e) => (e.type === 'message.delta' ? e.delta : ''))
      .join('');
    expect(shown).toBe('Editing the de');
    const events = await t.runtime.archiveEvents(t.session.sessionId);
    expect(events.filter((e) => e.kind === 'model_retry')).toEqual([]);
    expect(
      events.filter((e) => e.kind === 'tool_call').map((e) => e.kind === 'tool_call' && e.functionName),
    ).toEqual(['search_tools', 'search_tools']);
    expect(events.filter((e) => e.kind === 'assistant_message').at(-1)).toMatchObject({
      finish: 'interrupted',
      text: 'Editing the de',
      interruption: {
        code: 'model_stream_interrupted',
        detail: new ModelStreamStalledError(IDLE_MS).message,
      },
    });
    // the conversation goes on: the next message is answered
    const again = await t.ask('Did stall-mid work?');
    expect(again.outcome).toBe('completed');
    expect(t.emu.refusals()).toEqual([]);
  });

  it('a whole completion whose body stops halfway: retried as a timeout at the request bound, then the turn completes, one write', async () => {
    const t = await setUp(
      'stall-whole',
      { baseDelayMs: 5 },
      (e) => emulatorSettings(e, MODE_QUIRKS['non-streaming']),
      { timeoutMs: 3_000 },
    );
    t.emu.failNext({ kind: 'stall_stream', afterChars: 0, match: { afterToolResultFor: 'search_tools' } });
    const turn = await t.ask();
    expect(turn.outcome).toBe('completed');
    const requests = t.emu.requests();
    expect(requests.every((q) => !q.stream)).toBe(true);
    expect(requests.map((q) => q.clientClosedEarly)).toEqual([false, true, false, false]);
    expect(writesWith(t.description)).toHaveLength(1);
    const retries = (await t.runtime.archiveEvents(t.session.sessionId)).filter(
      (e) => e.kind === 'model_retry',
    );
    expect(retries.map((r) => r.kind === 'model_retry' && [r.reason, r.status, r.fromProvider])).toEqual([
      ['timeout', null, false],
    ]);
  });

  it('before any token: retried as a timeout, the same request answers, the write happens once', async () => {
    const t = await setUp('stall-early', { baseDelayMs: 5 }, undefined, { streamIdleMs: IDLE_MS });
    t.emu.failNext({ kind: 'stall_stream', afterChars: 0, match: { afterToolResultFor: 'search_tools' } });
    const turn = await t.ask();
    expect(turn.outcome).toBe('completed');
    const requests = t.emu.requests();
    expect(requests.map((q) => q.clientClosedEarly)).toEqual([false, true, false, false]);
    expect(requests[2]?.matchedStep).toBe(requests[1]?.matchedStep);
    expect(writesWith(t.description)).toHaveLength(1);
    const retries = (await t.runtime.archiveEvents(t.session.sessionId)).filter(
      (e) => e.kind === 'model_retry',
    );
    expect(retries.map((r) => r.kind === 'model_retry' && [r.reason, r.status, r.fromProvider])).toEqual([
      ['timeout', null, false],
    ]);
  });
});
