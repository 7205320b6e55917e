/**
 * The host's overhead per model round trip: a chat turn (no tools, empty scope: no Hub request) on
 * the real runtime against the provider emulator with zero latency, against the bare openai SDK
 * streaming the same request (the same messages the desk sent) from the same emulator,
 * interleaved. The difference is what the desk adds: the history rebuilt from the archive, the
 * archive writes (fsync'd), streaming redaction, events.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { DEFAULT_EMULATED_MODEL, startProviderEmulator } from '../../demo/provider-emulator/index.js';
import { createDeskRuntimeFromDataDir } from '../../src-main/runtime/from-data-dir.js';
import { providerQuirks } from '../../src-shared/model-providers.js';

export interface RoundTripResult {
  host: number[];
  bare: number[];
}

export async function measureModelRoundTrip(opts: {
  hubUrl: string;
  hubToken: string;
  hubId: string;
  clientId: string;
  turns: number;
  warmup: number;
}): Promise<RoundTripResult> {
  const emu = await startProviderEmulator({
    modes: ['openai-strict'],
    apiKey: null,
    script: [{ name: 'chat', reply: { text: 'Noted: that is fine, nothing to do.' }, repeat: true }],
  });
  const dir = mkdtempSync(join(tmpdir(), 'bench-rt-model-'));
  const settings = {
    baseUrl: emu.url,
    model: DEFAULT_EMULATED_MODEL,
    apiKey: null,
    quirks: providerQuirks('openai'),
  };
  const { runtime } = await createDeskRuntimeFromDataDir({
    dataDir: dir,
    hubUrl: opts.hubUrl,
    hubToken: opts.hubToken,
    hubId: opts.hubId,
    clientId: opts.clientId,
    modelSettings: { get: async () => settings },
  });
  const bareClient = new OpenAI({ baseURL: emu.url, apiKey: 'unused', maxRetries: 0 });
  const host: number[] = [];
  const bare: number[] = [];
  try {
    const session = await runtime.createSession({ authorizationRefs: [] });
    for (let i = 0; i < opts.turns + opts.warmup; i++) {
      let t = performance.now();
      const turn = await runtime.sendMessage(session.sessionId, `Message ${i}: please note the order.`);
      const hostMs = performance.now() - t;
      if (turn.outcome !== 'completed') throw new Error(`turn ${turn.outcome}: ${turn.error}`);
      const sent = emu.requests().at(-1)?.messages as ChatCompletionMessageParam[];
      t = performance.now();
      const stream = await bareClient.chat.completions.create({
        model: DEFAULT_EMULATED_MODEL,
        messages: sent,
        stream: true,
        stream_options: { include_usage: true },
      });
      let text = '';
      for await (const c of stream) text += c.choices[0]?.delta.content ?? '';
      const bareMs = performance.now() - t;
      if (!text) throw new Error('bare request returned no text');
      if (i >= opts.warmup) {
        host.push(hostMs);
        bare.push(bareMs);
      }
    }
  } finally {
    await runtime.close();
    await emu.close();
    rmSync(dir, { recursive: true, force: true });
  }
  return { host, bare };
}
