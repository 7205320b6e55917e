/**
 * `turn_started`: every turn opens with one saved `turn_started` event carrying its turn id, before
 * its user message, and closes with one `turn_ended` of the same id — also for a cancelled turn and
 * for a turn refused because the archive could not save its message (then both are queued unsaved
 * and saved in order later). The event changes neither the model's history nor the conversation the
 * app rebuilds from the archive. Real SQLite archive, real Hub, scripted model over HTTP.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { conversationItems } from '../../src-main/handlers/conversation.js';
import type { ArchiveEvent, DeskRuntime, RuntimeEvent } from '../../src-main/runtime/desk-runtime.js';
import { AUTH, startRuntimeTestEnv, type RuntimeTestEnv } from './fixtures/env.js';
import { newDataDir, startRuntime } from './fixtures/runtime.js';

let env: RuntimeTestEnv;
let runtime: DeskRuntime;
let events: RuntimeEvent[];
let dataDir: string;
beforeAll(async () => {
  env = await startRuntimeTestEnv();
  dataDir = newDataDir();
  ({ runtime, events } = await startRuntime(env, dataDir));
}, 30_000);
afterAll(async () => {
  await runtime?.close();
  await env?.close();
});

/** Each turn id with the kinds of its events, in archive order. */
function turnsOf(stored: readonly ArchiveEvent[]): Map<string, string[]> {
  const turns = new Map<string, string[]>();
  for (const e of stored) {
    if (e.turnId === null) continue;
    turns.set(e.turnId, [...(turns.get(e.turnId) ?? []), e.kind]);
  }
  return turns;
}

describe('turn_started', () => {
  it('opens every turn in the archive with its turn id; the model history and the rebuilt conversation ignore it', async () => {
    const s = await runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    env.model.setScript([
      {
        name: 'tb-search',
        match: { userIncludes: 'load' },
        reply: { toolCalls: [{ name: 'search_tools', arguments: { query: 'get product' } }] },
      },
      { name: 'tb-loaded', match: { afterToolResultFor: 'search_tools' }, reply: { text: 'Loaded.' } },
      { name: 'tb-thanks', match: { userIncludes: 'thanks' }, reply: { text: 'You are welcome.' } },
    ]);
    const first = await runtime.sendMessage(s.sessionId, 'load the product tools');
    const second = await runtime.sendMessage(s.sessionId, 'thanks');
    expect(env.model.unmatched()).toEqual([]);

    const stored = await runtime.archiveEvents(s.sessionId);
    const starts = stored.filter(
      (e): e is Extract<ArchiveEvent, { kind: 'turn_started' }> => e.kind === 'turn_started',
    );
    expect(starts.map((e) => e.turnId)).toEqual([first.turnId, second.turnId]);
    // The row in the archive file: turn id column and payload both name the turn.
    const db = new Database(join(dataDir, 'archive.sqlite'), { readonly: true });
    try {
      const rows = db
        .prepare<[string], { turn_id: string; payload: string }>(
          "SELECT turn_id, payload FROM archive_events WHERE session_id = ? AND kind = 'turn_started' ORDER BY seq",
        )
        .all(s.sessionId);
      expect(rows.map((r) => [r.turn_id, JSON.parse(r.payload)])).toEqual([
        [first.turnId, { turnId: first.turnId }],
        [second.turnId, { turnId: second.turnId }],
      ]);
    } finally {
      db.close();
    }
    const turns = turnsOf(stored);
    expect(turns.get(first.turnId)).toEqual([
      'turn_started',
      'user_message',
      'assistant_message',
      'tool_call',
      'tool_result',
      'assistant_message',
      'turn_ended',
    ]);
    expect(turns.get(second.turnId)).toEqual([
      'turn_started',
      'user_message',
      'assistant_message',
      'turn_ended',
    ]);
    // Saved before it was shown, like every event.
    const shown = events.filter(
      (e): e is Extract<RuntimeEvent, { type: 'archive.event' }> =>
        e.type === 'archive.event' && e.event.kind === 'turn_started',
    );
    expect(shown.map((e) => e.event.eventId)).toEqual(starts.map((e) => e.eventId));

    // The model never sees it: the second request holds exactly the conversation.
    const req = env.model.requests().find((q) => q.matchedStep === 'tb-thanks')!;
    expect(req.messages.map((m) => m.role)).toEqual([
      'system',
      'user',
      'assistant',
      'tool',
      'assistant',
      'user',
    ]);
    // The conversation the app rebuilds from the archive shows no item for it.
    const items = conversationItems(stored);
    expect(items.map((i) => i.kind)).toEqual([
      'user_message',
      'tool_call',
      'assistant_text',
      'user_message',
      'assistant_text',
    ]);
  });

  it('a cancelled turn and a refused turn (archive locked) also start with turn_started; a reopened host reads them back', async () => {
    const s = await runtime.createSession({ authorizationRefs: [] });
    env.model.setScript([
      {
        name: 'tb-slow',
        match: { userIncludes: 'story' },
        reply: { text: 'Once upon a time, in a long story...', stallAfterFirstChunkMs: 20_000 },
      },
    ]);
    const pending = runtime.sendMessage(s.sessionId, 'Tell me a story');
    const end = Date.now() + 10_000;
    while (!events.some((e) => e.type === 'message.delta' && e.sessionId === s.sessionId)) {
      if (Date.now() > end) throw new Error('no stream');
      await new Promise((r) => setTimeout(r, 20));
    }
    await runtime.cancelTurn(s.sessionId);
    const cancelled = await pending;
    expect(cancelled.outcome).toBe('cancelled');

    const lock = new Database(join(dataDir, 'archive.sqlite'));
    lock.exec('BEGIN EXCLUSIVE');
    let refused;
    try {
      refused = await runtime.sendMessage(s.sessionId, 'while the disk is locked');
      const st = await runtime.archiveStatus(s.sessionId);
      expect(st.unsavedEvents.map((u) => u.kind)).toEqual(['turn_started', 'user_message', 'turn_ended']);
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    expect(refused.outcome).toBe('refused');
    expect(await runtime.archiveStatus(s.sessionId)).toMatchObject({ state: 'ready', unsavedEvents: [] });

    const turns = turnsOf(await runtime.archiveEvents(s.sessionId));
    expect(turns.get(cancelled.turnId)).toEqual([
      'turn_started',
      'user_message',
      'control',
      'assistant_message',
      'turn_ended',
    ]);
    expect(turns.get(refused.turnId)).toEqual(['turn_started', 'user_message', 'turn_ended']);

    // A fresh runtime on the same data directory reads the same boundaries back.
    const reopened = (await startRuntime(env, dataDir)).runtime;
    try {
      const opened = await reopened.openSession(s.sessionId);
      expect(turnsOf(opened.events)).toEqual(turns);
    } finally {
      await reopened.close();
    }
  });
});
