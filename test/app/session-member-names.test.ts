// A conversation's scope members carry their system's name as the Hub listed it when the
// conversation was made (`system_name`, kept in the archive): a system retired since is gone from
// the agent list, and the desk still names it — live, and after a restart before the conversation
// is opened. A name the desk never had is null (nothing invented).
import { describe, expect, it } from 'vitest';
import { createHubAdminClient } from '../../src-main/hub-client/admin-client.js';
import { sessionView } from '../../src-main/handlers/views.js';
import type { SessionSummary } from '../../src-main/runtime/desk-runtime.js';
import type { CallResult } from '../../src-shared/ipc/contract.js';
import type { SessionSummary as SessionView } from '../../src-shared/ipc/views.js';
import { restartTestDesk, withTestDesk } from './support.js';

const held = withTestDesk();
const ctx = { transport: 'browser' as const };

const ok = <T>(r: { ok: true; value: T } | { ok: false; error: { code: string; message: string } }): T => {
  if (!r.ok) throw new Error(`call failed: ${r.error.code} ${r.error.message}`);
  return r.value;
};
const sessions = async (): Promise<SessionView[]> =>
  ok((await held.desk.root.router.call('listSessions', {}, ctx)) as CallResult<'listSessions'>).sessions;
const viewOf = async (id: string): Promise<SessionView | undefined> =>
  (await sessions()).find((s) => s.session_id === id);

describe("a scope member's system name", () => {
  it('is served from what the desk kept, after the system was retired and after a restart', async () => {
    const shopB = held.desk.root.local!.demo.shopB;
    const made = ok(
      (await held.desk.root.router.call(
        'createSession',
        { title: 'Shop B', authorization_refs: ['auth-shop-b'], task_id: null },
        ctx,
      )) as CallResult<'createSession'>,
    );
    expect(made.members).toEqual([
      {
        authorization_ref: 'auth-shop-b',
        system_id: shopB.systemId,
        system_name: shopB.name,
        account: expect.any(String),
      },
    ]);
    ok(
      (await held.desk.root.router.call(
        'getConversation',
        { session_id: made.session_id },
        ctx,
      )) as CallResult<'getConversation'>,
    );

    const local = held.desk.root.local!;
    await createHubAdminClient({ baseUrl: local.url, token: local.adminToken }).retireSystem(shopB.systemId);
    const agentList = ok(
      (await held.desk.root.router.call('listAuthorizations', {}, ctx)) as CallResult<'listAuthorizations'>,
    );
    expect(agentList.authorizations.map((a) => a.authorization_ref)).not.toContain('auth-shop-b');
    // the retire's notice blocks the living conversation (the feed runs on the event stream)
    let blocked = await viewOf(made.session_id);
    for (const until = Date.now() + 10_000; blocked?.availability !== 'blocked' && Date.now() < until;)
      blocked = await new Promise<SessionView | undefined>((r) =>
        setTimeout(() => r(viewOf(made.session_id)), 25),
      );
    expect(blocked).toMatchObject({ availability_reason: 'system_retired', availability_ref: 'auth-shop-b' });
    expect(blocked?.members[0]?.system_name).toBe(shopB.name);

    await restartTestDesk(held.desk);
    const persisted = await viewOf(made.session_id);
    expect(persisted?.availability).toBe('not_opened');
    expect(persisted?.members[0]?.system_name).toBe(shopB.name);
  }, 60_000);

  it('is null where the desk kept none (an older archive) or kept the ref in its stead', () => {
    const summary = (memberNames: Record<string, string>): SessionSummary => ({
      sessionId: 's1',
      title: 't',
      createdAt: '2026-12-02T10:00:00.000Z',
      updatedAt: '2026-12-02T10:00:00.000Z',
      hubId: 'hub_1',
      members: [{ authorization_ref: 'auth-x', authorization_revision: 1, system_id: 'x', account: 'op' }],
      memberNames,
      scopeFingerprint: 'f',
      scopeRevision: 1,
      taskId: null,
      reuseDeclarations: true,
      availability: 'not_opened',
      availabilityReason: null,
      availabilityRef: null,
      activeTurnId: null,
      eventCount: 0,
    });
    expect(sessionView(summary({})).members[0]?.system_name).toBeNull();
    expect(sessionView(summary({ 'auth-x': 'auth-x' })).members[0]?.system_name).toBeNull();
    expect(sessionView(summary({ 'auth-x': 'X' })).members[0]?.system_name).toBe('X');
  });
});
