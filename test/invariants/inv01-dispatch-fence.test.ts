/**
 * Invariant 1 — dispatch fence (host). No business request leaves the host until its journal record
 * is CAS-saved: with the journal's SQLite file locked by another connection, a manual tool run
 * makes no invoke and no resume reaches the Hub, and the state is storage_error. A save that fails
 * AFTER the response keeps storage_error (and the unsaved record) even though the business call
 * succeeded (invariant 10), until an explicit restore.
 * Real parts: the data-dir runtime (SQLite journal/scope/archive), real Hub, demo systems.
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUTH } from '../runtime/fixtures/env.js';
import { dispatchesOf, waitUntil, useLiveRuntime } from './support.js';

const live = useLiveRuntime();

function lockJournal(): () => void {
  const db = new Database(join(live.dataDir, 'invocations.sqlite'));
  db.exec('BEGIN EXCLUSIVE');
  return () => {
    db.exec('COMMIT');
    db.close();
  };
}

const hubWrites = () =>
  live.env.proxy.requests().filter((r) => r === 'POST /agent/v1/invocations' || r.endsWith('/resume'));

describe('invariant 1: dispatch fence', () => {
  it('a journal that cannot save: no invoke reaches the Hub, storage_error stays until restore', async () => {
    const s = await live.runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    await live.runtime.searchTools(s.sessionId, 'update product content');
    const ledger = live.env.demo.shopA.ledger().length;
    live.env.proxy.reset();
    const unlock = lockJournal();
    let run;
    try {
      run = await live.runtime.runToolManually(s.sessionId, 'auth_shop_a__update_product_content', {
        product_id: 42,
        description: 'fenced',
      });
    } finally {
      unlock();
    }
    expect(run.card.state).not.toBe('succeeded');
    expect(run.card.feedback?.category).toBe('storage_error');
    expect(hubWrites()).toEqual([]);
    expect(live.env.demo.shopA.ledger().length).toBe(ledger);

    // the lock is gone, but the failure stays visible until resolved
    const status = await live.runtime.journalStatus(s.sessionId);
    expect(status.state).toBe('storage_error');
    // and no further call leaves while it is unresolved
    const blocked = await live.runtime.runToolManually(s.sessionId, 'auth_shop_a__update_product_content', {
      product_id: 42,
      description: 'still fenced',
    });
    expect(blocked.card.feedback?.category).toBe('storage_error');
    expect(hubWrites()).toEqual([]);

    expect((await live.runtime.restoreJournal(s.sessionId)).state).toBe('ready');
    const ok = await live.runtime.runToolManually(s.sessionId, 'auth_shop_a__update_product_content', {
      product_id: 42,
      description: 'after restore',
    });
    expect(ok.card.state).toBe('succeeded');
  }, 30_000);

  it('a save failing after a successful response keeps storage_error and the unsaved record until restore', async () => {
    const s = await live.runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    await live.runtime.searchTools(s.sessionId, 'update product content');
    live.env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 600 });
    const before = live.env.demo.shopA.requests().length;
    const pending = live.runtime.runToolManually(s.sessionId, 'auth_shop_a__update_product_content', {
      product_id: 13,
      description: 'answer arrives while locked',
    });
    await waitUntil(() => live.env.demo.shopA.requests().length > before, 'the call to reach the shop');
    const unlock = lockJournal();
    let run;
    try {
      run = await pending;
    } finally {
      unlock();
    }
    const id = run.card.invocation_id!;
    expect(run.card.receipt?.state).toBe('succeeded');
    expect(run.card.feedback?.category).toBe('storage_error'); // a business success does not clear it
    const status = await live.runtime.journalStatus(s.sessionId);
    expect(status.state).toBe('storage_error');
    expect(status.unsavedRecords.map((u) => u.invocation_id)).toContain(id);
    // re-reading the status or the archive does not clear it (only an actual save does)
    await live.runtime.archiveEvents(s.sessionId);
    expect((await live.runtime.journalStatus(s.sessionId)).state).toBe('storage_error');
    const restored = await live.runtime.restoreJournal(s.sessionId);
    expect(restored.state).toBe('ready');
    expect(restored.entries.find((e) => e.invocation_id === id)?.last_known_state).toBe('succeeded');
    expect(dispatchesOf(live.env.demo.shopA, id)).toBe(1);
  }, 30_000);

  it('resume of an approved call: a failed save of the inspected receipt sends no resume', async () => {
    const s = await live.runtime.createSession({ authorizationRefs: [AUTH.shopA] });
    await live.runtime.searchTools(s.sessionId, 'publish listing');
    const run = await live.runtime.runToolManually(s.sessionId, 'auth_shop_a__publish_listing', {
      product_id: 42,
      channel: 'marketplace',
    });
    expect(run.card.receipt?.state).toBe('awaiting_approval');
    const id = run.card.invocation_id!;
    const list = (await live.env.admin.listApprovals({ state: 'pending' })).find(
      (a) => a.invocation_id === id,
    );
    await live.env.admin.decideApproval(list!.approval_id, { decision_id: `d-${id}`, decision: 'approve' });
    live.env.proxy.reset();
    const unlock = lockJournal();
    let resumed;
    try {
      resumed = await live.runtime.resumeInvocation(s.sessionId, id);
    } finally {
      unlock();
    }
    expect(resumed.state).toBe('storage_error');
    expect(resumed.resume_dispatched).toBe(false);
    expect(hubWrites()).toEqual([]);
    expect(dispatchesOf(live.env.demo.shopA, id)).toBe(0);
    expect((await live.runtime.restoreJournal(s.sessionId)).state).toBe('ready');
    const done = await live.runtime.resumeInvocation(s.sessionId, id);
    expect(done.receipt?.state).toBe('succeeded');
    expect(dispatchesOf(live.env.demo.shopA, id)).toBe(1);
  }, 30_000);
});
