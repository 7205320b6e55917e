import Database from 'better-sqlite3';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  ArchiveInputError,
  createSqliteArchive,
  type NewArchiveEvent,
} from '../../src-main/archive/index.js';

const tmpFile = () => join(mkdtempSync(join(tmpdir(), 'archive-')), 'archive.sqlite');
let n = 0;
const ev = (kind: string, payload: Record<string, unknown> = {}): NewArchiveEvent => ({
  eventId: `ev-${++n}`,
  turnId: null,
  at: new Date().toISOString(),
  kind,
  payload,
});

describe('sqlite conversation archive', () => {
  it('saves events in order and reads them back after reopening the file', () => {
    const file = tmpFile();
    const a = createSqliteArchive({ file });
    a.upsertSession({
      sessionId: 's1',
      title: 'T',
      createdAt: 'x',
      updatedAt: 'x',
      settings: { reuse: true },
    });
    const r1 = a.append('s1', ev('user_message', { text: 'hello' }));
    const r2 = a.append('s1', ev('assistant_message', { text: 'hi' }));
    expect(r1.saved && r1.event.seq).toBe(1);
    expect(r2.saved && r2.event.seq).toBe(2);
    a.close();
    const b = createSqliteArchive({ file });
    const { events, status } = b.load('s1');
    expect(events.map((e) => [e.seq, e.kind, e.payload.text])).toEqual([
      [1, 'user_message', 'hello'],
      [2, 'assistant_message', 'hi'],
    ]);
    expect(status).toEqual({ state: 'ready', unsavedEvents: [], recoveryGap: null, reason: null });
    expect(b.listSessions().map((s) => s.sessionId)).toEqual(['s1']);
    expect(b.getSession('s1')?.settings).toEqual({ reuse: true });
    b.close();
  });

  it('a write the database refuses stays an unsaved event (storage_error) until flushed, in order', () => {
    const file = tmpFile();
    const a = createSqliteArchive({ file, busyTimeoutMs: 0 });
    expect(a.append('s1', ev('user_message', { text: 'one' })).saved).toBe(true);
    const blocker = new Database(file);
    blocker.exec('BEGIN EXCLUSIVE');
    const failed = a.append('s1', ev('assistant_message', { text: 'two' }));
    expect(failed.saved).toBe(false);
    const queued = a.append('s1', ev('assistant_message', { text: 'three' }));
    expect(queued.saved).toBe(false);
    const st = a.status('s1');
    expect(st.state).toBe('storage_error');
    expect(st.unsavedEvents.map((u) => u.kind)).toEqual(['assistant_message', 'assistant_message']);
    expect(st.unsavedEvents[0]?.reason).toBe('archive_store_busy');
    expect(a.flush('s1').state).toBe('storage_error'); // still locked: nothing cleared
    blocker.exec('COMMIT');
    blocker.close();
    expect(a.flush('s1').state).toBe('ready');
    const four = a.append('s1', ev('user_message', { text: 'four' }));
    expect(four.saved && four.event.seq).toBe(4);
    expect(a.load('s1').events.map((e) => e.payload.text)).toEqual(['one', 'two', 'three', 'four']);
    a.close();
  });

  it('a sequence hole found on load is a visible recovery_gap that new events do not hide', () => {
    const file = tmpFile();
    const a = createSqliteArchive({ file });
    for (const t of ['a', 'b', 'c']) a.append('s1', ev('user_message', { text: t }));
    a.close();
    const raw = new Database(file);
    raw.prepare('DELETE FROM archive_events WHERE seq = 2').run();
    raw.close();
    const b = createSqliteArchive({ file });
    const loaded = b.load('s1');
    expect(loaded.status.state).toBe('recovery_gap');
    expect(loaded.status.recoveryGap).toMatchObject({ afterSeq: 1, nextSeq: 3 });
    b.append('s1', ev('user_message', { text: 'd' }));
    expect(b.status('s1').state).toBe('recovery_gap');
    b.close();
  });

  it('an unreadable event row is reported, not silently dropped', () => {
    const file = tmpFile();
    const a = createSqliteArchive({ file });
    a.append('s1', ev('user_message', { text: 'a' }));
    a.append('s1', ev('user_message', { text: 'b' }));
    a.close();
    const raw = new Database(file);
    raw.prepare("UPDATE archive_events SET payload = '{not json' WHERE seq = 1").run();
    raw.close();
    const b = createSqliteArchive({ file });
    const loaded = b.load('s1');
    expect(loaded.events.map((e) => e.seq)).toEqual([2]);
    expect(loaded.status.state).toBe('recovery_gap');
    expect(loaded.status.recoveryGap?.detail).toContain('unreadable');
    b.close();
  });

  it('never writes secrets to the file', () => {
    const file = tmpFile();
    const key = 'sk-live-very-secret-key-123';
    const a = createSqliteArchive({ file, secrets: () => [key] });
    a.append(
      's1',
      ev('user_message', {
        text: `my key is ${key}`,
        nested: { api_key: 'other-secret-value', token: 'tok-abcdef' },
      }),
    );
    a.close();
    const bytes =
      readFileSync(file).toString('latin1') +
      (() => {
        try {
          return readFileSync(`${file}-wal`).toString('latin1');
        } catch {
          return '';
        }
      })();
    expect(bytes).not.toContain(key);
    expect(bytes).not.toContain('other-secret-value');
    expect(bytes).not.toContain('tok-abcdef');
    const b = createSqliteArchive({ file });
    expect(b.load('s1').events[0]?.payload.text).toBe('my key is [redacted]');
    b.close();
  });

  it('an event id already in the log is bad input when appended again, and a queued event found saved is not saved twice', () => {
    const file = tmpFile();
    const a = createSqliteArchive({ file, busyTimeoutMs: 0 });
    const first = ev('user_message', { text: 'one' });
    expect(a.append('s1', first).saved).toBe(true);
    expect(() => a.append('s1', first)).toThrow(ArchiveInputError);
    // a save whose acknowledgement was lost: the row is in the file, the archive still queues it
    const blocker = new Database(file);
    blocker.exec('BEGIN EXCLUSIVE');
    const lost = ev('assistant_message', { text: 'two' });
    expect(a.append('s1', lost).saved).toBe(false);
    blocker
      .prepare(
        'INSERT INTO archive_events (session_id, seq, event_id, turn_id, at, kind, payload) VALUES (?, ?, ?, ?, ?, ?, ?)',
      )
      .run('s1', 2, lost.eventId, null, lost.at, lost.kind, JSON.stringify(lost.payload));
    blocker.exec('COMMIT');
    blocker.close();
    expect(a.flush('s1').state).toBe('ready');
    expect(a.load('s1').events.map((e) => e.payload.text)).toEqual(['one', 'two']);
    a.close();
  });

  it('rejects oversized payloads as bad input without losing what was saved', () => {
    const a = createSqliteArchive({ file: tmpFile(), maxPayloadBytes: 100 });
    a.append('s1', ev('user_message', { text: 'ok' }));
    expect(() => a.append('s1', ev('user_message', { text: 'x'.repeat(200) }))).toThrow(/exceeds/);
    expect(a.load('s1').events).toHaveLength(1);
    expect(a.status('s1').state).toBe('ready');
    a.close();
  });
});

describe('stream redactor', () => {
  it('masks a secret split across streamed pieces and holds back nothing at the end', async () => {
    const { createStreamRedactor } = await import('../../src-main/archive/index.js');
    const secret = 'sk-abcdef123456';
    const pieces = ['hello sk-ab', 'cdef12', '3456 and ', 'bye'];
    const r = createStreamRedactor([secret]);
    const out = pieces.map((p) => r.push(p)).join('') + r.flush();
    expect(out).toBe('hello [redacted] and bye');
    const eager = createStreamRedactor([secret]);
    expect(eager.push('Once upon a time ')).toBe('Once upon a time '); // nothing held back without a possible secret start
    expect(eager.push('then sk-')).toBe('then ');
    const plain = createStreamRedactor([]);
    expect(plain.push('abc') + plain.flush()).toBe('abc');
  });
});
