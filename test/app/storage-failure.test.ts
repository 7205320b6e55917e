// Journal or archive storage fails (a real SQLite lock held by another connection): the red state
// reaches the renderer, stays while anything else happens, and clears only when resolved. A status
// re-read never echoes as a change (no refresh loop). Nothing is sent while the journal cannot save.
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult, EventName } from '../../src-shared/ipc/contract.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

let desk: TestDesk;
const events: Array<{ name: EventName; payload: unknown }> = [];
const ctx = { transport: 'browser' as const };

beforeAll(async () => {
  desk = await startTestDesk();
  desk.root.bus.subscribe((name, payload) => events.push({ name, payload }));
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

const call = (name: string, input: unknown) => desk.root.router.call(name, input, ctx);

describe('storage failures stay visible until resolved', () => {
  it('re-reading status does not announce a change', async () => {
    await call('listUnresolved', {});
    const before = events.filter((e) => e.name === 'unresolvedChanged').length;
    for (let i = 0; i < 3; i++) await call('listUnresolved', {});
    expect(events.filter((e) => e.name === 'unresolvedChanged').length).toBe(before);
  });

  it('a journal that cannot save: the call is not sent, storage_error is shown and stays until restored', async () => {
    const sessionId = desk.root.defaultSessionId ?? '';
    const found = (await desk.root.router.call(
      'searchTools',
      { session_id: sessionId, query: 'product' },
      ctx,
    )) as CallResult<'searchTools'>;
    expect(found.ok).toBe(true);
    if (!found.ok) return;
    const tool = found.value.tools.find(
      (t) => t.tool === 'update_product_content' && t.authorization_ref === 'auth-shop-a',
    );
    expect(tool).toBeDefined();
    if (!tool) return;
    const shopA = desk.root.local?.demo.shopA;
    const ledgerBefore = shopA?.ledger().length ?? -1;

    const lock = new Database(join(desk.dir, 'data', 'host', 'invocations.sqlite'));
    lock.exec('BEGIN EXCLUSIVE');
    let run: CallResult<'runToolManually'>;
    try {
      run = (await desk.root.router.call(
        'runToolManually',
        {
          session_id: sessionId,
          function_name: tool.function_name,
          arguments: { product_id: 42, description: 'Written while the journal is locked' },
        },
        ctx,
      )) as CallResult<'runToolManually'>;
      const status = (await desk.root.router.call(
        'getJournalStatus',
        { session_id: sessionId },
        ctx,
      )) as CallResult<'getJournalStatus'>;
      expect(status).toMatchObject({ ok: true, value: { state: 'storage_error' } });
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    // The dispatch fence held: nothing reached the shop.
    expect(shopA?.ledger().length).toBe(ledgerBefore);
    expect(run.ok).toBe(true);
    if (run.ok && run.value.item.kind === 'tool_call') {
      expect(run.value.item.feedback?.category).toBe('storage_error');
      expect(run.value.item.state).not.toBe('succeeded');
    }
    const red = events.find(
      (e) =>
        e.name === 'storageChanged' &&
        (e.payload as { storage: { journal: { state: string } } }).storage.journal.state === 'storage_error',
    );
    expect(red).toBeDefined();

    // Other activity does not clear it: the state is still red after unrelated calls.
    await call('listSessions', {});
    await call('listTasks', {});
    const conv = (await desk.root.router.call(
      'getConversation',
      { session_id: sessionId },
      ctx,
    )) as CallResult<'getConversation'>;
    expect(conv).toMatchObject({ ok: true, value: { storage: { journal: { state: 'storage_error' } } } });

    // Resolved only by restoring the journal (the lock is gone now).
    const restored = (await desk.root.router.call(
      'restoreJournal',
      { session_id: sessionId },
      ctx,
    )) as CallResult<'restoreJournal'>;
    expect(restored).toMatchObject({ ok: true, value: { state: 'ready', unsaved_records: 0 } });
    await waitFor(
      () =>
        events.some(
          (e) =>
            e.name === 'storageChanged' &&
            (e.payload as { storage: { journal: { state: string } } }).storage.journal.state === 'ready',
        ),
      5000,
      'ready storage event',
    );
    expect(shopA?.ledger().length).toBe(ledgerBefore);
  });

  it('an archive that cannot save shows its own storage_error, independent of the journal', async () => {
    const sessionId = desk.root.defaultSessionId ?? '';
    const lock = new Database(join(desk.dir, 'data', 'host', 'archive.sqlite'));
    lock.exec('BEGIN EXCLUSIVE');
    try {
      await desk.root.router.call('searchTools', { session_id: sessionId, query: 'stock' }, ctx);
      const found = (await desk.root.router.call(
        'searchTools',
        { session_id: sessionId, query: 'inventory' },
        ctx,
      )) as CallResult<'searchTools'>;
      const read = found.ok ? found.value.tools.find((t) => t.effect === 'read') : undefined;
      expect(read).toBeDefined();
      await desk.root.router.call(
        'runToolManually',
        { session_id: sessionId, function_name: read?.function_name ?? '', arguments: {} },
        ctx,
      );
      const conv = (await desk.root.router.call(
        'getConversation',
        { session_id: sessionId },
        ctx,
      )) as CallResult<'getConversation'>;
      expect(conv.ok).toBe(true);
      if (conv.ok) {
        expect(conv.value.storage.archive.state).toBe('storage_error');
        expect(conv.value.storage.archive.unsaved_events).toBeGreaterThan(0);
        expect(conv.value.storage.journal.state).not.toBe('storage_error');
      }
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    expect(
      events.some(
        (e) =>
          e.name === 'storageChanged' &&
          (e.payload as { storage: { archive: { state: string } } }).storage.archive.state ===
            'storage_error',
      ),
    ).toBe(true);
  });
});
