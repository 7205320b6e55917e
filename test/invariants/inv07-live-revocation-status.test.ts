/**
 * Invariants 7 and 10: when the living runtime learns that a member was revoked (the Hub's
 * `authorization.changed` event fed through `authorizationChanged`), the session is blocked AND the
 * journal status says so (scope_state blocked); with an unsaved journal record at the same time,
 * storage_error stays primary and the blocked scope is reported alongside (docs/journal.md#states).
 */
import Database from 'better-sqlite3';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { AUTH } from '../runtime/fixtures/env.js';
import { waitUntil, useLiveRuntime } from './support.js';

const live = useLiveRuntime();

describe('a live revocation is reflected in the journal status', () => {
  it('unsaved record + revoked member: storage_error primary, scope_state blocked, record kept', async () => {
    const s = await live.runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.shopB] });
    await live.runtime.searchTools(s.sessionId, 'update product content');
    live.env.demo.shopA.faults.set({ operation: 'update_product_content', kind: 'delay', delay_ms: 500 });
    const before = live.env.demo.shopA.requests().length;
    const pending = live.runtime.runToolManually(s.sessionId, 'auth_shop_a__update_product_content', {
      product_id: 7,
      description: 'saved? no',
    });
    await waitUntil(() => live.env.demo.shopA.requests().length > before, 'the call to reach the shop');
    const lock = new Database(join(live.dataDir, 'invocations.sqlite'));
    lock.exec('BEGIN EXCLUSIVE');
    let run;
    try {
      run = await pending;
    } finally {
      lock.exec('COMMIT');
      lock.close();
    }
    const id = run.card.invocation_id!;

    await live.env.admin.revokeAuthorization(AUTH.shopB);
    const hub = createHubClient({ baseUrl: live.env.hub.url, token: live.env.clientToken });
    const changed = (await hub.listAuthorizations()).find((a) => a.authorization_ref === AUTH.shopB);
    expect(changed?.state).toBe('revoked');
    await live.runtime.authorizationChanged(changed!);

    // the idle panel reads the journal status without re-opening the session
    const status = await live.runtime.journalStatus(s.sessionId);
    expect(status.state).toBe('storage_error');
    expect(status.unsavedRecords.map((u) => u.invocation_id)).toContain(id);
    expect(status.scope_state).toBe('blocked');
    const opened = await live.runtime.openSession(s.sessionId);
    expect(opened.session.availability).toBe('blocked');
  });

  it('no storage error: a rebound member makes the journal status blocked (not ready)', async () => {
    const s = await live.runtime.createSession({ authorizationRefs: [AUTH.shopA, AUTH.inventory] });
    expect((await live.runtime.journalStatus(s.sessionId)).state).toBe('ready');
    const rebound = await live.env.admin.rebindAuthorization(AUTH.inventory, {});
    const hub = createHubClient({ baseUrl: live.env.hub.url, token: live.env.clientToken });
    const view = (await hub.listAuthorizations()).find((a) => a.authorization_ref === AUTH.inventory);
    expect(view?.revision).toBe(rebound.revision);
    await live.runtime.authorizationChanged(view!);
    const status = await live.runtime.journalStatus(s.sessionId);
    expect(status).toMatchObject({ state: 'blocked', scope_state: 'blocked' });
  });
});
