/**
 * The two-tool-call business turn against the strict provider emulator with the host as its own
 * process, SIGKILLed while the edit was in flight and started again on the same data: the history
 * rebuilt from the archive carries the same (provider id, host call id) pairs and the same
 * reasoning, so the strict emulator accepts it; the write happened once and nothing was re-sent.
 * Three providers: DeepSeek thinking with parallel calls interleaved and names repeated; one that
 * gives no tool-call ids and only whole completions (the desk's own short ids must be rebuilt the
 * same); Qwen thinking.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startProviderEmulator,
  type ProviderEmulator,
  type ProviderMode,
} from '../../demo/provider-emulator/index.js';
import type {
  ArchiveEvent,
  OpenedSession,
  SessionSummary,
  TurnResult,
} from '../../src-main/runtime/desk-runtime.js';
import { providerQuirks, type ProviderQuirks } from '../../src-shared/model-providers.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { spawnHost, type HostHandle } from './fixtures/host-handle.js';
import { newDataDir } from './fixtures/runtime.js';
import {
  businessScript,
  checkCallIdentities,
  EDIT_FN,
  emulatorSettings,
  idsSentBack,
  PROVIDER_KEY,
  toolCallEvents,
} from './fixtures/provider-turn.js';

let env: RuntimeTestEnv;
const emulators: ProviderEmulator[] = [];
const hosts: HostHandle[] = [];
beforeAll(async () => {
  env = await startRuntimeTestEnv();
});
afterAll(async () => {
  for (const h of hosts) await h.stop().catch(() => undefined);
  for (const e of emulators) await e.close();
  await env?.close();
});

interface Provider {
  name: string;
  modes: ProviderMode[];
  quirks: ProviderQuirks;
  providerGaveIds: boolean;
  /** The provider's rule wants the reasoning of tool-call turns back (checked exactly). */
  reasoningBack: boolean;
}
const PROVIDERS: Provider[] = [
  {
    name: 'DeepSeek thinking, parallel calls interleaved, names repeated',
    modes: ['deepseek-thinking', 'parallel-interleaved', 'names-repeated'],
    quirks: providerQuirks('deepseek'),
    providerGaveIds: true,
    reasoningBack: true,
  },
  {
    name: 'no tool-call ids, whole completions only',
    modes: ['ids-missing', 'non-streaming'],
    quirks: providerQuirks('ollama', { stream: false }),
    providerGaveIds: false,
    reasoningBack: false,
  },
  {
    name: 'Qwen thinking',
    modes: ['qwen-thinking'],
    quirks: providerQuirks('qwen'),
    providerGaveIds: true,
    reasoningBack: true,
  },
];

async function until<T>(fn: () => T | null | undefined | false, ms = 30_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = fn();
    if (v) return v;
    if (Date.now() > end) throw new Error('condition not reached');
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('host SIGKILLed mid-turn and restarted, against the strict emulator', () => {
  it.each(PROVIDERS)(
    '$name: the rebuilt history is accepted: same id pairs, same reasoning; one write per turn, none re-sent',
    async (provider) => {
      const emu = await startProviderEmulator({ modes: provider.modes, apiKey: PROVIDER_KEY });
      emulators.push(emu);
      const dataDir = newDataDir();
      const settings = emulatorSettings(emu, provider.quirks);
      const h1 = await spawnHost(env, dataDir, { model: settings });
      hosts.push(h1);
      const s = await h1.call<SessionSummary>('createSession', {
        title: 'provider restart',
        authorizationRefs: [AUTH.shopA, AUTH.inventory],
      });
      const ledger = () => env.demo.shopA.ledger().filter((l) => l.target === 'product:42');
      const before = ledger().length;

      // Turn A completes.
      emu.setScript([
        ...businessScript('restart-a', 'Turn A description.'),
        ...businessScript('restart-b', 'Turn B description.'),
        ...businessScript('restart-c', 'unused'),
      ]);
      const a = await h1.call<TurnResult>(
        'sendMessage',
        s.sessionId,
        'Please do restart-a: change the description of product 42.',
      );
      expect(a.outcome).toBe('completed');
      expect(ledger().length).toBe(before + 1);

      // Turn B: the shop commits the edit and never answers; the host is killed while it waits.
      env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'hang_after_commit' });
      h1.fire('sendMessage', s.sessionId, 'Please do restart-b: change the description of product 42.');
      await until(() => ledger().length === before + 2);
      await h1.kill();
      env.demo.shopA.faults.clear();
      const invokesAtKill = (await env.hubMetrics()).invokes;
      const requestsAtKill = emu.requests().length;

      const h2 = await spawnHost(env, dataDir, { model: settings });
      hosts.push(h2);
      const opened = await h2.call<OpenedSession>('openSession', s.sessionId);
      const turnB = opened.events.find((e) => e.kind === 'user_message' && e.text.includes('restart-b'))
        ?.turnId as string;
      const bCalls = toolCallEvents(opened.events, turnB);
      expect(bCalls.map((c) => c.functionName)).toEqual([
        'search_tools',
        'search_tools',
        EDIT_FN,
        'auth_inventory__find_sku',
      ]);
      const unanswered = bCalls.filter(
        (c) => !opened.events.some((e) => e.kind === 'tool_result' && e.callId === c.callId),
      );
      expect(unanswered.map((c) => c.functionName)).toEqual([EDIT_FN, 'auth_inventory__find_sku']);
      expect(emu.requests()).toHaveLength(requestsAtKill); // reopening asks the model nothing

      // A new message after the restart: the strict emulator accepts the rebuilt history.
      const c = await h2.call<TurnResult>('sendMessage', s.sessionId, 'Did restart-b work?');
      expect(c.outcome).toBe('completed');
      expect(emu.refusals()).toEqual([]);
      const rebuilt = emu.requests().at(-1);
      const events = await h2.call<ArchiveEvent[]>('archiveEvents', s.sessionId);
      // Every call of turns A and B went back under its own provider id, never a host call id.
      const allCalls = toolCallEvents(events);
      expect(new Set(idsSentBack(rebuilt!))).toEqual(new Set(allCalls.map((x) => x.providerCallId)));
      for (const x of allCalls) expect(idsSentBack(rebuilt!)).not.toContain(x.callId);
      // The unanswered calls are answered as "no result was recorded", under their provider ids.
      for (const u of unanswered) {
        const answer = rebuilt!.messages.find(
          (m) => m.role === 'tool' && m.tool_call_id === u.providerCallId,
        );
        expect(String(answer?.content)).toContain('No result was recorded');
      }
      // The reasoning of every assistant message of the tool-call turns went back exactly as archived.
      const archivedReasoning = events
        .filter((e) => e.kind === 'assistant_message' && e.turnId !== c.turnId)
        .map((e) => (e.kind === 'assistant_message' ? (e.reasoning?.text ?? '') : ''));
      const sentReasoning = rebuilt!.messages
        .filter((m) => m.role === 'assistant')
        .map((m) => (m as { reasoning_content?: string }).reasoning_content);
      if (provider.reasoningBack) expect(sentReasoning).toEqual(archivedReasoning);
      else expect(sentReasoning.every((r) => r === undefined)).toBe(true);
      expect(rebuilt!.stream).toBe(provider.quirks.stream);
      // One write per turn; the restart re-sent nothing.
      expect(ledger().length).toBe(before + 2);
      expect((await env.hubMetrics()).invokes).toBe(invokesAtKill);
      await checkCallIdentities({
        emu,
        events,
        turnId: a.turnId,
        dataDir,
        sessionId: s.sessionId,
        providerGaveIds: provider.providerGaveIds,
      });
    },
    120_000,
  );
});
