// Conversation notices carry a stable code (and the invocation id / the free text after a code)
// for real runtime events: a real desk (embedded Hub, runtime on SQLite files) and the project's
// scripted model (real openai SDK, real turn loop) end turns by failing the model request, by
// reaching the step limit and by being cancelled; inspect and resume are asked through the handler
// table. The notice the relay streams and the one rebuilt from the archive agree, keep the English
// text of older builds, and carry no secret.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../../demo/scripted-model/index.js';
import type { CallResult, EventPayload } from '../../src-shared/ipc/contract.js';
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

type Notice = Extract<ConversationItem, { kind: 'notice' }>;

const API_KEY = 'sk-notice-test-0123456789abcdef';
let model: ScriptedModel;
let desk: TestDesk;
const live: Notice[] = [];
const turns: Array<EventPayload<'turnState'>> = [];
const deltas: string[] = [];
const ctx = { transport: 'browser' as const };

beforeAll(async () => {
  model = await startScriptedModel({
    script: [
      // The model server's error carries the API key: the runtime redacts it before anything is recorded.
      {
        match: { userIncludes: 'broken' },
        reply: { httpError: { status: 400, message: `upstream refused it (key ${API_KEY})` } },
        repeat: true,
      },
      {
        match: { turnUserIncludes: 'loop' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'product' } }] },
        repeat: true,
      },
      {
        match: { userIncludes: 'slow' },
        reply: { text: 'Thinking about it at length…', stallAfterFirstChunkMs: 30_000 },
        repeat: true,
      },
    ],
  });
  desk = await startTestDesk({
    env: { BAILING_MODEL_BASE_URL: model.url, BAILING_MODEL: 'scripted', BAILING_MODEL_API_KEY: API_KEY },
  });
  desk.root.bus.subscribe((name, payload) => {
    if (name === 'conversationItem') {
      const p = payload as EventPayload<'conversationItem'>;
      if (p.item.kind === 'notice') live.push(p.item);
      if (p.item.kind === 'assistant_text' && p.item.streaming) deltas.push(p.item.text);
    }
    if (name === 'turnState') turns.push(payload as EventPayload<'turnState'>);
  });
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
  await model?.close();
}, 120_000);

const sessionId = () => desk.root.defaultSessionId ?? '';

async function runTurn(
  text: string,
  final: 'failed' | 'cancelled',
  during?: () => Promise<void>,
): Promise<Notice> {
  const before = live.length;
  const sent = (await desk.root.router.call(
    'sendMessage',
    { session_id: sessionId(), text },
    ctx,
  )) as CallResult<'sendMessage'>;
  if (!sent.ok) throw new Error(`sendMessage refused: ${sent.error.code}`);
  const turnId = sent.value.turn_id;
  await during?.();
  await waitFor(() => turns.some((t) => t.turn_id === turnId && t.state === final), 30_000, `turn ${final}`);
  return waitFor(() => live.slice(before).find((n) => n.level !== 'info'), 10_000, 'notice');
}

async function rebuilt(): Promise<Notice[]> {
  const conv = (await desk.root.router.call(
    'getConversation',
    { session_id: sessionId() },
    ctx,
  )) as CallResult<'getConversation'>;
  if (!conv.ok) throw new Error(`getConversation refused: ${conv.error.code}`);
  return conv.value.items.filter((i): i is Notice => i.kind === 'notice');
}

describe('notice codes from a real runtime', () => {
  it('a failed model request: its code, the server’s words as the detail, no API key anywhere', async () => {
    const n = await runTurn('this will be broken', 'failed');
    // A 400 is not retried: the turn ends at once with the model client's code for it.
    expect(n).toMatchObject({ level: 'error', code: 'model_request_rejected', invocation_id: null });
    expect(n.detail).toContain('upstream refused it');
    expect(n.text).toBe(`model_request_rejected: ${n.detail ?? ''}`);
    expect(n.detail).toContain('[redacted]'); // the key was in the server's words, and was taken out
    expect(JSON.stringify(n)).not.toContain(API_KEY);
    const again = (await rebuilt()).find((r) => r.id === n.id);
    expect(again).toEqual(n);
  });

  it('a turn that keeps calling tools: step_limit_reached', async () => {
    const n = await runTurn('loop over the tools', 'failed');
    expect(n).toMatchObject({
      level: 'error',
      code: 'step_limit_reached',
      detail: null,
      invocation_id: null,
      text: 'step_limit_reached',
    });
    expect((await rebuilt()).find((r) => r.id === n.id)).toEqual(n);
  });

  it('a cancelled turn: turn_cancelled', async () => {
    const n = await runTurn('a slow answer please', 'cancelled', async () => {
      await waitFor(() => deltas.some((d) => d.startsWith('Thinking')), 10_000, 'first chunk');
      const r = await desk.root.router.call('cancelTurn', { session_id: sessionId() }, ctx);
      expect(r.ok).toBe(true);
    });
    expect(n).toMatchObject({
      level: 'warning',
      code: 'turn_cancelled',
      detail: null,
      invocation_id: null,
      text: 'Turn cancelled.',
    });
    expect((await rebuilt()).find((r) => r.id === n.id)).toEqual(n);
  });

  it('inspect and resume asked by the operator: invocation_inspected and resume_requested with the invocation id', async () => {
    const id = 'inv_notice_test_0001';
    await desk.root.router.call('inspectInvocation', { session_id: sessionId(), invocation_id: id }, ctx);
    await desk.root.router.call('resumeInvocation', { session_id: sessionId(), invocation_id: id }, ctx);
    const info = (await rebuilt()).filter((r) => r.level === 'info');
    expect(
      info.map(({ code, invocation_id, detail, text }) => ({ code, invocation_id, detail, text })),
    ).toEqual([
      { code: 'invocation_inspected', invocation_id: id, detail: null, text: `Inspected ${id}.` },
      { code: 'resume_requested', invocation_id: id, detail: null, text: `Resume requested for ${id}.` },
    ]);
  });
});
