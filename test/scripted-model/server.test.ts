import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import OpenAI from 'openai';
import { afterEach, describe, expect, it } from 'vitest';
import { NO_STEP_TEXT, startScriptedModel, type ScriptedModel } from '../../demo/scripted-model/index.js';

let model: ScriptedModel | null = null;
afterEach(async () => {
  await model?.close();
  model = null;
});

const tool = {
  type: 'function' as const,
  function: { name: 'search_tools', parameters: { type: 'object', properties: {} } },
};

describe('scripted model server (real openai SDK)', () => {
  it('answers non-streaming text and tool calls in script order and logs what the model saw', async () => {
    model = await startScriptedModel({
      script: [
        {
          name: 'search',
          match: { userIncludes: 'edit' },
          reply: { toolCalls: [{ id: 'c1', name: 'search_tools', arguments: { query: 'edit product' } }] },
        },
        { name: 'done', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'Found it.' } },
      ],
    });
    const client = new OpenAI({ baseURL: model.url, apiKey: 'sk-test-secret' });
    const first = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'please edit' }],
      tools: [tool],
    });
    const call = first.choices[0]?.message.tool_calls?.[0];
    expect(first.choices[0]?.finish_reason).toBe('tool_calls');
    expect(call?.type === 'function' && call.function.name).toBe('search_tools');
    expect(call?.type === 'function' && JSON.parse(call.function.arguments)).toEqual({
      query: 'edit product',
    });
    const second = await client.chat.completions.create({
      model: 'm',
      messages: [
        { role: 'user', content: 'please edit' },
        {
          role: 'assistant',
          content: null,
          tool_calls: [{ id: 'c1', type: 'function', function: { name: 'search_tools', arguments: '{}' } }],
        },
        { role: 'tool', tool_call_id: 'c1', content: '{"ok":true}' },
      ],
    });
    expect(second.choices[0]?.message.content).toBe('Found it.');
    const log = model.requests();
    expect(log.map((r) => r.matchedStep)).toEqual(['search', 'done']);
    expect(log[0]?.toolNames).toEqual(['search_tools']);
    expect(log[0]?.hadAuthorization).toBe(true);
    expect(JSON.stringify(log)).not.toContain('sk-test-secret');
  });

  it('streams text and tool calls as SSE chunks that the SDK reassembles', async () => {
    model = await startScriptedModel({
      script: [
        {
          reply: {
            text: 'Hello there, this is a longer streamed answer.',
            toolCalls: [{ name: 'x__y', arguments: { a: 1, b: 'two' } }],
          },
        },
      ],
    });
    const client = new OpenAI({ baseURL: model.url, apiKey: 'k' });
    const stream = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
    });
    let text = '';
    let args = '';
    let name = '';
    let chunks = 0;
    let finish: string | null = null;
    for await (const c of stream) {
      chunks++;
      const d = c.choices[0]?.delta;
      text += d?.content ?? '';
      for (const tc of d?.tool_calls ?? []) {
        name += tc.function?.name ?? '';
        args += tc.function?.arguments ?? '';
      }
      finish = c.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe('Hello there, this is a longer streamed answer.');
    expect(name).toBe('x__y');
    expect(JSON.parse(args)).toEqual({ a: 1, b: 'two' });
    expect(finish).toBe('tool_calls');
    expect(chunks).toBeGreaterThan(4);
  });

  it('sends malformed tool arguments and unknown names verbatim, and reports unmatched requests', async () => {
    model = await startScriptedModel({
      script: [
        { match: { userEquals: 'go' }, reply: { toolCalls: [{ name: 'nope', arguments: '{"bad json' }] } },
      ],
    });
    const client = new OpenAI({ baseURL: model.url, apiKey: 'k' });
    const r = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
    });
    const call = r.choices[0]?.message.tool_calls?.[0];
    expect(call?.type === 'function' && call.function.arguments).toBe('{"bad json');
    const again = await client.chat.completions.create({
      model: 'm',
      messages: [{ role: 'user', content: 'go' }],
    });
    expect(again.choices[0]?.message.content).toBe(NO_STEP_TEXT);
    expect(model.unmatched()).toHaveLength(1);
  });

  it('answers HTTP errors and lists models', async () => {
    model = await startScriptedModel({
      script: [{ reply: { httpError: { status: 503, message: 'overloaded' } } }],
    });
    const client = new OpenAI({ baseURL: model.url, apiKey: 'k', maxRetries: 0 });
    await expect(
      client.chat.completions.create({ model: 'm', messages: [{ role: 'user', content: 'x' }] }),
    ).rejects.toMatchObject({ status: 503 });
    const models = await client.models.list();
    expect(models.data.map((m) => m.id)).toEqual(['scripted-model']);
  });

  it('an aborted stream is logged as closed early', async () => {
    model = await startScriptedModel({
      script: [{ reply: { text: 'first chunk then a long stall', stallAfterFirstChunkMs: 5_000 } }],
    });
    const client = new OpenAI({ baseURL: model.url, apiKey: 'k' });
    const ac = new AbortController();
    const stream = await client.chat.completions.create(
      { model: 'm', messages: [{ role: 'user', content: 'x' }], stream: true },
      { signal: ac.signal },
    );
    let got = '';
    try {
      for await (const c of stream) {
        got += c.choices[0]?.delta?.content ?? '';
        if (got.length > 0) ac.abort();
      }
    } catch {
      // the SDK may end the iteration or throw an abort error; either way the stream stops
    }
    expect(got).not.toBe('first chunk then a long stall');
    await new Promise((r) => setTimeout(r, 100));
    expect(model.requests()[0]?.clientClosedEarly).toBe(true);
  });

  it('runs as a separate process from a JSON script file', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'scripted-'));
    const file = join(dir, 'script.json');
    writeFileSync(file, JSON.stringify([{ match: { userIncludes: 'ping' }, reply: { text: 'pong' } }]));
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'demo/scripted-model/cli.ts', '--script', file],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    try {
      const line = await new Promise<string>((resolve, reject) => {
        let buf = '';
        child.stdout.on('data', (b: Buffer) => {
          buf += b.toString();
          if (buf.includes('\n')) resolve(buf.split('\n')[0] ?? '');
        });
        child.once('exit', (code) => reject(new Error(`exited ${code}`)));
      });
      const { url } = JSON.parse(line) as { url: string };
      const client = new OpenAI({ baseURL: url, apiKey: 'k' });
      const r = await client.chat.completions.create({
        model: 'm',
        messages: [{ role: 'user', content: 'ping' }],
      });
      expect(r.choices[0]?.message.content).toBe('pong');
    } finally {
      child.kill('SIGTERM');
    }
  });
});
