/**
 * Invariant 10 (failures stay visible) and the recovery contract's "no replayed user message"
 * (docs/design.md#the-recovery-contract), on the
 * archive: a user message that could not be saved refuses its turn ("not shown and not sent to the
 * model") and the archive shows storage_error until resolved. When the store works again the
 * unsaved message is flushed into the transcript (nothing is silently dropped), but the model must
 * never receive it as an instruction in a later turn: the operator was told it was refused.
 * Real runtime on a data dir; the archive's SQLite file is locked by another connection.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTH } from '../runtime/fixtures/env.js';
import { useLiveRuntime } from './support.js';
import { startRuntime } from '../runtime/fixtures/runtime.js';

const live = useLiveRuntime();

describe('invariant 10: a refused, unsaved user message stays visible and is never replayed to the model', () => {
  it('refused while the archive is locked; later turns and a reopened host never send it to the model', async () => {
    const s = await live.runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    live.env.model.setScript([
      { name: 'any', match: { userIncludes: '' }, reply: { text: 'ok' }, repeat: true },
    ]);
    const lock = new Database(join(live.dataDir, 'archive.sqlite'));
    lock.exec('BEGIN EXCLUSIVE');
    let refused;
    try {
      refused = await live.runtime.sendMessage(s.sessionId, 'PUBLISH PRODUCT 42 NOW');
      const status = await live.runtime.archiveStatus(s.sessionId);
      expect(status.state).toBe('storage_error');
      expect(status.unsavedEvents.map((u) => u.kind)).toContain('user_message');
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    expect(refused.outcome).toBe('refused');
    expect(live.env.model.requests()).toHaveLength(0);
    // reading the status retries the save: with the lock gone it resolves (the message is now in the transcript)
    expect((await live.runtime.archiveStatus(s.sessionId)).state).toBe('ready');

    await live.runtime.sendMessage(s.sessionId, 'thanks');
    const sent = JSON.stringify(live.env.model.requests().map((r) => r.messages));
    expect(sent).not.toContain('PUBLISH PRODUCT 42 NOW');
    // nothing was dropped: the transcript keeps what the operator typed
    const events = await live.runtime.archiveEvents(s.sessionId);
    expect(events.some((e) => e.kind === 'user_message' && e.text === 'PUBLISH PRODUCT 42 NOW')).toBe(true);
    expect((await live.runtime.archiveStatus(s.sessionId)).state).toBe('ready');
    await live.runtime.close();

    live.runtime = (await startRuntime(live.env, live.dataDir)).runtime;
    await live.runtime.openSession(s.sessionId);
    await live.runtime.sendMessage(s.sessionId, 'and again');
    expect(JSON.stringify(live.env.model.requests().map((r) => r.messages))).not.toContain(
      'PUBLISH PRODUCT 42 NOW',
    );
  });
});
