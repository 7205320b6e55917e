// Model providers in Settings, through the real handler table and the real desk: presets with their
// quirks, the key following its origin (changing the base URL's origin without a key clears the
// stored one; the next model request carries no key — seen at the provider emulator — and Settings
// says to enter it again), the same for a remote Hub's URL and token, the key masked before any
// message or attachment is checked, and Test connection (models listed, then a one-token request)
// with its outcome as codes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startProviderEmulator, type ProviderEmulator } from '../../demo/provider-emulator/index.js';
import type { CallInput, CallName, CallOutput, CallResult } from '../../src-shared/ipc/contract.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

const ctx = { transport: 'browser' as const };
const KEY_A = 'sk-provider-a-key-0123456789abcdef';
let desk: TestDesk;
let a: ProviderEmulator;
let b: ProviderEmulator;

beforeAll(async () => {
  const script = [
    { name: 'hello', match: { userIncludes: 'hello' }, reply: { text: 'Hello, operator.' }, repeat: true },
  ];
  a = await startProviderEmulator({ apiKey: KEY_A, models: ['model-a', 'model-a-mini'], script });
  b = await startProviderEmulator({ apiKey: null, models: ['model-b'], script });
  desk = await startTestDesk();
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
  await a?.close();
  await b?.close();
}, 120_000);

const call = async <K extends CallName>(name: K, input: CallInput<K>): Promise<CallResult<K>> =>
  (await desk.root.router.call(name, input, ctx)) as CallResult<K>;

async function value<K extends CallName>(name: K, input: CallInput<K>): Promise<CallOutput<K>> {
  const r = await call(name, input);
  if (!r.ok) throw new Error(`${name} refused: ${r.error.code} ${r.error.message}`);
  return r.value as CallOutput<K>;
}

const sessionId = () => desk.root.defaultSessionId ?? '';

/** Resolves once no turn is running in any conversation (one turn at a time per conversation). */
async function idle(ms = 20_000): Promise<void> {
  const until = Date.now() + ms;
  while ((await desk.root.runtime.listSessions()).some((x) => x.activeTurnId !== null)) {
    if (Date.now() > until) throw new Error('a turn is still running');
    await new Promise((r) => setTimeout(r, 25));
  }
}

describe('provider presets and the key that follows its origin', () => {
  it('a preset fills the quirks the runtime uses; the key goes to its own origin only', async () => {
    const saved = await value('setModelSettings', {
      provider: 'deepseek',
      base_url: a.url,
      model: 'model-a',
      api_key: KEY_A,
      session_only: true,
    });
    expect(saved.model).toMatchObject({
      provider: 'deepseek',
      base_url: a.url,
      key_configured: true,
      key_cleared: null,
      stream: true,
      send_reasoning: 'tool_call_turns',
    });
    const s = await desk.root.settings.modelProvider.get();
    expect(s).toMatchObject({ baseUrl: a.url, model: 'model-a', apiKey: KEY_A, provider: 'deepseek' });
    expect(s.quirks).toMatchObject({ reasoningSendBack: 'tool_call_turns', stream: true });
    // The same origin with another path keeps the key; the operator's own choices override the preset.
    const samePlace = await value('setModelSettings', {
      provider: 'deepseek',
      base_url: a.url.replace('/v1', '/v1/'),
      model: 'model-a',
      stream: false,
      send_reasoning: 'never',
    });
    expect(samePlace.model).toMatchObject({ key_configured: true, stream: false, send_reasoning: 'never' });
    expect((await desk.root.settings.modelProvider.get()).quirks).toMatchObject({
      stream: false,
      reasoningSendBack: 'never',
    });
    const file = readFileSync(join(desk.dir, 'data', 'settings.json'), 'utf8');
    expect(file).not.toContain(KEY_A);
    expect(JSON.parse(file).model).toMatchObject({
      provider: 'deepseek',
      key_origin: new URL(a.url).origin,
      stream: false,
    });
  });

  it('another origin without a key: the key is cleared, Settings says to enter it again, the next request carries none', async () => {
    await value('setModelSettings', {
      provider: 'openai',
      base_url: a.url,
      model: 'model-a',
      api_key: KEY_A,
      session_only: true,
    });
    const moved = await value('setModelSettings', { provider: 'custom', base_url: b.url, model: 'model-b' });
    expect(moved.model).toMatchObject({
      base_url: b.url,
      key_configured: false,
      key_cleared: 'origin_changed',
    });
    expect((await desk.root.settings.modelProvider.get()).apiKey).toBeNull();
    const before = b.requests().length;
    const sent = await call('sendMessage', { session_id: sessionId(), text: 'hello there' });
    expect(sent.ok).toBe(true);
    await waitFor(() => b.requests().length > before, 20_000, 'the model request at B');
    expect(
      b
        .requests()
        .slice(before)
        .map((r) => r.key),
    ).toEqual(['none']);
    expect(a.requests().some((r) => r.key !== 'expected' && r.key !== 'none')).toBe(false);
    // Back to A without a key: the old key is gone for good (the operator enters it again).
    const back = await value('setModelSettings', { provider: 'openai', base_url: a.url, model: 'model-a' });
    expect(back.model).toMatchObject({ key_configured: false, key_cleared: 'origin_changed' });
    // Entering a key in the same save as the new origin keeps that key.
    const withKey = await value('setModelSettings', {
      provider: 'openai',
      base_url: a.url,
      model: 'model-a',
      api_key: KEY_A,
      session_only: true,
    });
    expect(withKey.model).toMatchObject({ key_configured: true, key_cleared: null });
    await idle();
  });

  it('a remote Hub: a new origin without a token clears the stored token (not used at the next start)', async () => {
    await value('setHubSettings', {
      mode: 'remote',
      url: 'http://127.0.0.1:7001/',
      client_token: 'bdc_x.hub-token-value-aaaa',
      session_only: true,
    });
    expect(await desk.root.settings.remoteHubToken()).toBe('bdc_x.hub-token-value-aaaa');
    const moved = await value('setHubSettings', { mode: 'remote', url: 'http://127.0.0.2:7001/' });
    expect(moved.hub).toMatchObject({ token_configured: false, token_cleared: 'origin_changed' });
    expect(await desk.root.settings.remoteHubToken()).toBeNull();
    const again = await value('setHubSettings', {
      mode: 'remote',
      url: 'http://127.0.0.2:7001/',
      client_token: 'bdc_x.hub-token-value-bbbb',
      session_only: true,
    });
    expect(again.hub).toMatchObject({ token_configured: true, token_cleared: null });
    await value('setHubSettings', { mode: 'local' });
  });

  it('a key saved in Settings is masked before any message or attachment is checked', async () => {
    const fresh = 'sk-entered-just-now-000111222333';
    await value('setModelSettings', {
      provider: 'custom',
      base_url: b.url,
      model: 'model-b',
      api_key: fresh,
      session_only: true,
    });
    const refused = await call('sendMessage', {
      session_id: sessionId(),
      text: 'hello, see the attached notes',
      attachments: [{ name: 'notes.txt', media_type: 'text/plain', text: `my key is ${fresh}` }],
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'attachment_contains_secret' } });
    const sent = await call('sendMessage', { session_id: sessionId(), text: `hello, my key is ${fresh}` });
    expect(sent.ok).toBe(true);
    await idle();
    const archived = JSON.stringify(await desk.root.runtime.archiveEvents(sessionId()));
    expect(archived).not.toContain(fresh);
    expect(archived).toContain('hello, my key is [redacted]');
    expect(JSON.stringify(b.requests())).not.toContain(fresh);
  });

  it('a remote Hub token saved in Settings is masked before any attachment is checked, also back on the local Hub', async () => {
    const hubToken = 'bdc_remote.just-saved-hub-token-000999888';
    await value('setHubSettings', {
      mode: 'remote',
      url: 'http://127.0.0.2:7001/',
      client_token: hubToken,
      session_only: true,
    });
    await value('setHubSettings', { mode: 'local' });
    const refused = await call('sendMessage', {
      session_id: sessionId(),
      text: 'the attached file has my settings',
      attachments: [{ name: 'hub.txt', media_type: 'text/plain', text: `token=${hubToken}` }],
    });
    expect(refused).toMatchObject({ ok: false, error: { code: 'attachment_contains_secret' } });
    if (!refused.ok) expect(refused.error.message).not.toContain(hubToken);
    expect(JSON.stringify(await desk.root.runtime.archiveEvents(sessionId()))).not.toContain(hubToken);
  });
});

describe('Test connection', () => {
  it('lists the models, then a one-token request answers; the chosen model is (or is not) in the list', async () => {
    const r = await value('testModelConnection', {
      provider: 'openai',
      base_url: a.url,
      model: 'model-a-mini',
      api_key: KEY_A,
    });
    expect(r).toEqual({
      models: { state: 'listed', ids: ['model-a', 'model-a-mini'], failure: null },
      completion: { state: 'ok', failure: null },
      model_listed: true,
      key_used: 'entered',
    });
    const oneToken = a.requests().at(-1);
    expect(oneToken?.params).toMatchObject({ max_completion_tokens: 1, stream: false });
    const missing = await value('testModelConnection', {
      provider: 'openai',
      base_url: a.url,
      model: 'model-z',
      api_key: KEY_A,
    });
    expect(missing.model_listed).toBe(false);
    expect(missing.completion).toEqual({
      state: 'failed',
      failure: {
        code: 'model_not_found',
        status: 404,
        detail: 'The model `model-z` does not exist or you do not have access to it.',
      },
    });
  });

  it('a wrong key is model_auth_failed at the list (no completion sent); the stored key is used only on its own origin', async () => {
    const before = a.requests().length;
    const wrong = await value('testModelConnection', {
      provider: 'openai',
      base_url: a.url,
      model: 'model-a',
      api_key: 'sk-wrong-wrong-wrong-00',
    });
    expect(wrong.models.failure).toMatchObject({ code: 'model_auth_failed', status: 401 });
    expect(wrong.completion.state).toBe('skipped');
    expect(a.requests().length).toBe(before);
    // The stored key (saved for A) goes with a test of A, never with a test of B.
    await value('setModelSettings', {
      provider: 'openai',
      base_url: a.url,
      model: 'model-a',
      api_key: KEY_A,
      session_only: true,
    });
    expect(
      (await value('testModelConnection', { provider: 'openai', base_url: a.url, model: 'model-a' }))
        .key_used,
    ).toBe('stored');
    const listingsB = b.listings().length;
    const onB = await value('testModelConnection', { provider: 'custom', base_url: b.url, model: 'model-b' });
    expect(onB).toMatchObject({ key_used: 'none', completion: { state: 'ok' } });
    expect(
      b
        .listings()
        .slice(listingsB)
        .map((l) => l.key),
    ).toEqual(['none']);
    expect(b.requests().at(-1)?.key).toBe('none');
  });

  it('nothing answering is model_unreachable, worded by code', async () => {
    const r = await value('testModelConnection', {
      provider: 'custom',
      base_url: 'http://127.0.0.1:9/v1',
      model: 'm',
    });
    expect(r.models.failure?.code).toBe('model_unreachable');
    expect(r.completion.failure?.code).toBe('model_unreachable');
  });
});
