// The provider emulator's strict modes, each checked with the real openai SDK: the documented
// refusal for a request that breaks the rule, and an answer for one that keeps it.
import OpenAI, { APIError } from 'openai';
import type { ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { afterEach, describe, expect, it } from 'vitest';
import {
  DEFAULT_EMULATED_MODEL,
  MID_STREAM_ERROR,
  startProviderEmulator,
  type ProviderEmulator,
  type ProviderEmulatorOptions,
} from '../../demo/provider-emulator/index.js';
import type { Script } from '../../demo/scripted-model/script.js';

let emu: ProviderEmulator | null = null;
afterEach(async () => {
  await emu?.close();
  emu = null;
});

const KEY = 'sk-emulator-test-key-0001';
const tool = {
  type: 'function' as const,
  function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
};
const script: Script = [
  {
    name: 'two-calls',
    match: { userIncludes: 'look up' },
    reply: {
      text: 'Looking both up now.',
      toolCalls: [
        { name: 'lookup', arguments: { q: 'first thing — “quoted” ✓' } },
        { name: 'lookup', arguments: { q: 'second thing' } },
      ],
    },
  },
  { name: 'done', match: { afterToolResultFor: 'lookup' }, reply: { text: 'Both found.' }, repeat: true },
  { name: 'chat', match: { userIncludes: 'hello' }, reply: { text: 'Hello there, operator.' }, repeat: true },
];

async function start(o: ProviderEmulatorOptions): Promise<{ client: OpenAI; emu: ProviderEmulator }> {
  emu = await startProviderEmulator({ script, apiKey: KEY, ...o });
  return { emu, client: new OpenAI({ baseURL: emu.url, apiKey: KEY, maxRetries: 0 }) };
}

const ask = (content: string): ChatCompletionMessageParam[] => [{ role: 'user', content }];

/** The streamed chunks of the scripted reply that makes two tool calls. */
async function twoCallsStream(client: OpenAI): Promise<ChatCompletionChunk[]> {
  return collect(
    await client.chat.completions.create({
      model: DEFAULT_EMULATED_MODEL,
      messages: ask('please look up two things'),
      tools: [tool],
      stream: true,
    }),
  );
}

async function collect(stream: AsyncIterable<ChatCompletionChunk>): Promise<ChatCompletionChunk[]> {
  const out: ChatCompletionChunk[] = [];
  for await (const c of stream) out.push(c);
  return out;
}

/** Assembles the first reply with the SDK's own stream helper-free logic (index-matched, names not concatenated). */
function assemble(chunks: ChatCompletionChunk[]) {
  let text = '';
  let reasoning = '';
  let finish: string | null = null;
  const calls = new Map<number, { id: string; name: string; args: string }>();
  for (const c of chunks) {
    const ch = c.choices[0];
    if (!ch) continue;
    const d = ch.delta as typeof ch.delta & { reasoning_content?: string };
    text += d.content ?? '';
    reasoning += d.reasoning_content ?? '';
    for (const tc of d.tool_calls ?? []) {
      const cur = calls.get(tc.index) ?? { id: '', name: '', args: '' };
      if (tc.id) cur.id = tc.id;
      if (tc.function?.name && tc.function.name !== cur.name) cur.name += tc.function.name;
      cur.args += tc.function?.arguments ?? '';
      calls.set(tc.index, cur);
    }
    finish = ch.finish_reason ?? finish;
  }
  return { text, reasoning, finish, calls: [...calls.values()] };
}

/** The history a well-behaved client sends after the two calls, with the ids as issued. */
function followUp(first: ReturnType<typeof assemble>, withReasoning: boolean): ChatCompletionMessageParam[] {
  const assistant = {
    role: 'assistant' as const,
    content: first.text,
    tool_calls: first.calls.map((c) => ({
      id: c.id,
      type: 'function' as const,
      function: { name: c.name, arguments: c.args },
    })),
    ...(withReasoning ? { reasoning_content: first.reasoning } : {}),
  };
  return [
    ...ask('please look up two things'),
    assistant as ChatCompletionMessageParam,
    ...first.calls.map((c) => ({ role: 'tool' as const, tool_call_id: c.id, content: '{"ok":true}' })),
  ];
}

async function refusedWith(p: Promise<unknown>): Promise<APIError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(APIError);
  return err as APIError;
}

describe('provider emulator, openai-strict (base rules)', () => {
  it('issues ids of at most 40 characters, answers a history that sends them back, refuses a longer one with OpenAI’s error', async () => {
    const { client, emu } = await start({ modes: ['openai-strict'] });
    const chunks = await collect(
      await client.chat.completions.create({
        model: DEFAULT_EMULATED_MODEL,
        messages: ask('please look up two things'),
        tools: [tool],
        stream: true,
        stream_options: { include_usage: true },
      }),
    );
    const first = assemble(chunks);
    expect(first.calls).toHaveLength(2);
    for (const c of first.calls) expect(c.id.length).toBeLessThanOrEqual(40);
    expect(JSON.parse(first.calls[0]?.args ?? '')).toEqual({ q: 'first thing — “quoted” ✓' });
    expect(chunks.at(-1)?.choices).toEqual([]);
    expect(chunks.at(-1)?.usage?.total_tokens).toBeGreaterThan(0);
    const ok = await client.chat.completions.create({
      model: DEFAULT_EMULATED_MODEL,
      messages: followUp(first, false),
    });
    expect(ok.choices[0]?.message.content).toBe('Both found.');

    const long = `turn_${'0'.repeat(36)}.0.${first.calls[0]?.id}`;
    const history = followUp(first, false).map((m) =>
      m.role === 'tool' && m.tool_call_id === first.calls[0]?.id ? { ...m, tool_call_id: long } : m,
    );
    const err = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: history }),
    );
    expect(err.status).toBe(400);
    expect(err.code).toBe('string_above_max_length');
    expect(err.message).toContain(
      `Invalid 'messages[2].tool_call_id': string too long. Expected a string with maximum length 40, but got a string with length ${long.length} instead.`,
    );
    expect(emu.refusals().map((r) => r.refusedBy)).toEqual(['tool-call-id-length']);
  });

  it('refuses an id it never issued, a tool message that answers nothing, and a call left unanswered', async () => {
    const { client, emu } = await start({ modes: ['openai-strict'] });
    const first = assemble(await twoCallsStream(client));
    const good = followUp(first, false);
    const renamed = good.map((m) =>
      m.role === 'assistant'
        ? { ...m, tool_calls: m.tool_calls?.map((c, i) => (i === 0 ? { ...c, id: 'call_mine_0' } : c)) }
        : m.role === 'tool' && m.tool_call_id === first.calls[0]?.id
          ? { ...m, tool_call_id: 'call_mine_0' }
          : m,
    ) as ChatCompletionMessageParam[];
    expect(
      (
        await refusedWith(
          client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: renamed }),
        )
      ).status,
    ).toBe(400);
    const unanswered = good.slice(0, -1);
    const e2 = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: unanswered }),
    );
    expect(e2.message).toContain('did not have response messages');
    const orphan: ChatCompletionMessageParam[] = [
      ...ask('hello'),
      { role: 'tool', tool_call_id: 'call_x', content: '1' },
    ];
    const e3 = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: orphan }),
    );
    expect(e3.message).toContain("messages with role 'tool' must be a response");
    expect(emu.refusals().map((r) => r.refusedBy)).toEqual([
      'tool-call-id-issued',
      'tool-call-pairing',
      'tool-call-pairing',
    ]);
  });

  it('checks the key (401 without one or with another; logs only whether one came) and the model (404)', async () => {
    const { emu } = await start({ modes: ['openai-strict'] });
    const noKey = new OpenAI({
      baseURL: emu.url,
      apiKey: 'placeholder',
      defaultHeaders: { Authorization: null },
      maxRetries: 0,
    });
    expect(
      (
        await refusedWith(
          noKey.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello') }),
        )
      ).status,
    ).toBe(401);
    const other = new OpenAI({ baseURL: emu.url, apiKey: 'sk-someone-else', maxRetries: 0 });
    const e = await refusedWith(
      other.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello') }),
    );
    expect(e.status).toBe(401);
    expect(e.code).toBe('invalid_api_key');
    const good = new OpenAI({ baseURL: emu.url, apiKey: KEY, maxRetries: 0 });
    const missing = await refusedWith(
      good.chat.completions.create({ model: 'gpt-nope', messages: ask('hello') }),
    );
    expect([missing.status, missing.code]).toEqual([404, 'model_not_found']);
    expect((await good.models.list()).data.map((m) => m.id)).toEqual([DEFAULT_EMULATED_MODEL]);
    expect(emu.requests().map((r) => r.key)).toEqual(['none', 'other', 'expected']);
    expect(JSON.stringify(emu.requests())).not.toContain(KEY);
  });
});

describe('provider emulator, thinking modes', () => {
  it('deepseek-thinking streams reasoning_content and refuses a tool-call turn whose reasoning is not passed back', async () => {
    const { client, emu } = await start({ modes: ['deepseek-thinking'] });
    const first = assemble(await twoCallsStream(client));
    expect(first.reasoning).toContain('I will call lookup and lookup');
    const e = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: followUp(first, false) }),
    );
    expect(e.status).toBe(400);
    expect(e.message).toContain('The reasoning_content in the thinking mode must be passed back to the API.');
    const ok = await client.chat.completions.create({
      model: DEFAULT_EMULATED_MODEL,
      messages: followUp(first, true),
    });
    const msg = ok.choices[0]?.message as { content: string | null; reasoning_content?: string };
    expect(msg.content).toBe('Both found.');
    expect(msg.reasoning_content).toContain('I have the result');
    // A later user turn still needs that reasoning; a turn without tool calls needs none.
    const later: ChatCompletionMessageParam[] = [
      ...followUp(first, true),
      {
        role: 'assistant',
        content: 'Both found.',
        reasoning_content: msg.reasoning_content,
      } as ChatCompletionMessageParam,
      ...ask('hello'),
      { role: 'assistant', content: 'Hello there, operator.' },
      ...ask('hello'),
    ];
    await client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: later });
    const tampered = later.map((m) =>
      m.role === 'assistant' && 'tool_calls' in m ? { ...m, reasoning_content: 'something else' } : m,
    ) as ChatCompletionMessageParam[];
    await refusedWith(client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: tampered }));
    expect(emu.refusals().map((r) => r.refusedBy)).toEqual([
      'reasoning-passed-back',
      'reasoning-passed-back',
    ]);
  });

  it('qwen-thinking: a non-streaming request must turn thinking off; streaming carries reasoning_content', async () => {
    const { client } = await start({ modes: ['qwen-thinking'] });
    const e = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello') }),
    );
    expect(e.status).toBe(400);
    expect(e.message).toContain('parameter.enable_thinking must be set to false for non-streaming calls');
    const off = await client.chat.completions.create({
      model: DEFAULT_EMULATED_MODEL,
      messages: ask('hello'),
      enable_thinking: false,
    } as OpenAI.ChatCompletionCreateParamsNonStreaming);
    expect((off.choices[0]?.message as { reasoning_content?: string }).reasoning_content).toBeUndefined();
    const streamed = assemble(
      await collect(
        await client.chat.completions.create({
          model: DEFAULT_EMULATED_MODEL,
          messages: ask('hello'),
          stream: true,
        }),
      ),
    );
    expect(streamed.reasoning).toContain('I can answer now');
    expect(streamed.text).toBe('Hello there, operator.');
  });
});

describe('provider emulator, faults and stream shapes', () => {
  it('retry-after: the first request gets 429 with retry-after: 2, the next one an answer', async () => {
    const { client, emu } = await start({ modes: ['retry-after'] });
    const e = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello') }),
    );
    expect(e.status).toBe(429);
    expect(e.headers?.get('retry-after')).toBe('2');
    expect(e.code).toBe('rate_limit_exceeded');
    const ok = await client.chat.completions.create({
      model: DEFAULT_EMULATED_MODEL,
      messages: ask('hello'),
    });
    expect(ok.choices[0]?.message.content).toBe('Hello there, operator.');
    emu.failNext({ kind: 'rate_limit', times: 2, retryAfterMs: 150 });
    const e2 = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello') }),
    );
    expect(e2.headers?.get('retry-after-ms')).toBe('150');
    await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello') }),
    );
    await client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello') });
    expect(emu.requests().map((r) => r.status)).toEqual([429, 200, 429, 429, 200]);
  });

  it('names-repeated: id and name in every chunk of a call, finish_reason stop with tool calls', async () => {
    const { client } = await start({ modes: ['names-repeated'] });
    const chunks = await twoCallsStream(client);
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    expect(deltas.length).toBeGreaterThan(4);
    expect(deltas.every((d) => d.function?.name === 'lookup' && typeof d.id === 'string')).toBe(true);
    expect(chunks.map((c) => c.choices[0]?.finish_reason).filter(Boolean)).toEqual(['stop']);
    const naive = deltas
      .filter((d) => d.index === 0)
      .map((d) => d.function?.name)
      .join('');
    expect(naive).toBe('lookup'.repeat(deltas.filter((d) => d.index === 0).length));
  });

  it('parallel-interleaved: calls alternate by index, arguments cut unevenly, empty choices in between', async () => {
    const { client } = await start({ modes: ['parallel-interleaved'] });
    const chunks = await twoCallsStream(client);
    const order = chunks.flatMap((c) => (c.choices[0]?.delta.tool_calls ?? []).map((d) => d.index));
    expect(order.slice(0, 4)).toEqual([0, 1, 0, 1]);
    expect(chunks.filter((c) => c.choices.length === 0).length).toBeGreaterThanOrEqual(2);
    const first = assemble(chunks);
    expect(first.calls.map((c) => JSON.parse(c.args))).toEqual([
      { q: 'first thing — “quoted” ✓' },
      { q: 'second thing' },
    ]);
  });

  it('error-mid-stream: some text, then an error event the SDK raises', async () => {
    const { client, emu } = await start({ modes: ['error-mid-stream'] });
    const stream = await client.chat.completions.create({
      model: DEFAULT_EMULATED_MODEL,
      messages: ask('hello'),
      stream: true,
    });
    let text = '';
    const err = await (async () => {
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(APIError);
    expect((err as APIError).message).toContain(MID_STREAM_ERROR);
    expect(text).toBe('Hello there, o');
    // Armed once: the next stream is whole.
    const again = assemble(
      await collect(
        await client.chat.completions.create({
          model: DEFAULT_EMULATED_MODEL,
          messages: ask('hello'),
          stream: true,
        }),
      ),
    );
    expect(again.text).toBe('Hello there, operator.');
    expect(emu.issuedCalls()).toEqual([]);
  });

  it('non-streaming: stream: true is refused, a whole completion carries the calls', async () => {
    const { client } = await start({ modes: ['non-streaming'] });
    const e = await refusedWith(
      client.chat.completions.create({ model: DEFAULT_EMULATED_MODEL, messages: ask('hello'), stream: true }),
    );
    expect(e.status).toBe(400);
    const r = await client.chat.completions.create({
      model: DEFAULT_EMULATED_MODEL,
      messages: ask('please look up two things'),
      tools: [tool],
    });
    expect(r.choices[0]?.finish_reason).toBe('tool_calls');
    expect(r.choices[0]?.message.tool_calls).toHaveLength(2);
    expect(r.usage?.total_tokens).toBeGreaterThan(0);
  });

  it('ids-missing: tool calls come without ids', async () => {
    const { client } = await start({ modes: ['ids-missing'] });
    const first = assemble(await twoCallsStream(client));
    expect(first.calls.map((c) => c.id)).toEqual(['', '']);
    expect(first.calls.map((c) => c.name)).toEqual(['lookup', 'lookup']);
  });
});
