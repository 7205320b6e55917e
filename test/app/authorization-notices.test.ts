// The app feeds the Hub's authorization.changed events to its runtime (src-main/handlers/
// authorization-feed.ts): with a real desk (embedded Hub, demo systems), retiring a system blocks a
// living conversation that holds its authorization at once, with no call made; registering the
// system again (a revive) has the conversation's scope checked again, and it opens; a revoke blocks
// it as revoked. Nothing is sent to the business systems on the way.
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHubAdminClient, type HubAdminClient } from '../../src-main/hub-client/admin-client.js';
import type { SessionSummary } from '../../src-main/runtime/desk-runtime.js';
import { hubConnected, startTestDesk, type TestDesk } from './support.js';

let desk: TestDesk;
let admin: HubAdminClient;
beforeAll(async () => {
  desk = await startTestDesk();
  await hubConnected(desk);
  const local = desk.root.local!;
  admin = createHubAdminClient({ baseUrl: local.url, token: local.adminToken });
});
afterAll(async () => {
  await desk?.cleanup();
});

async function summary(sessionId: string): Promise<SessionSummary> {
  const s = (await desk.root.runtime.listSessions()).find((x) => x.sessionId === sessionId);
  if (!s) throw new Error(`no session ${sessionId}`);
  return s;
}

/** Waits until the session's availability is `state` (the feed runs on the event stream). */
async function availability(
  sessionId: string,
  state: SessionSummary['availability'],
): Promise<SessionSummary> {
  const until = Date.now() + 10_000;
  for (;;) {
    const s = await summary(sessionId);
    if (s.availability === state) return s;
    if (Date.now() > until) throw new Error(`session ${sessionId} is ${s.availability}, not ${state}`);
    await sleep(25);
  }
}

describe("the Hub's authorization notices reach the living conversations", () => {
  it('a retire blocks at once, without a call; a revive opens the conversation again', async () => {
    const s = await desk.root.runtime.createSession({ authorizationRefs: ['auth-shop-a', 'auth-shop-b'] });
    await desk.root.runtime.openSession(s.sessionId);
    expect((await summary(s.sessionId)).availability).toBe('open');
    const shopB = desk.root.local!.demo.shopB;
    const sent = shopB.requests().length;

    expect((await admin.retireSystem(shopB.systemId)).retired_at).not.toBeNull();
    expect(await availability(s.sessionId, 'blocked')).toMatchObject({
      availabilityReason: 'system_retired',
      availabilityRef: 'auth-shop-b',
    });

    const revived = await admin.registerSystem({
      system_id: shopB.systemId,
      name: shopB.name,
      base_url: shopB.url,
      signing_secret: shopB.secret,
    });
    expect(revived.retired_at).toBeNull();
    expect(await availability(s.sessionId, 'open')).toMatchObject({
      availabilityReason: null,
      availabilityRef: null,
    });
    // the register read the shop's spec; no business call was made
    expect(
      shopB
        .requests()
        .slice(sent)
        .filter((r) => r.kind !== 'spec'),
    ).toEqual([]);
  });

  it('a revoke blocks at once, as revoked', async () => {
    const s = await desk.root.runtime.createSession({ authorizationRefs: ['auth-inventory'] });
    await desk.root.runtime.openSession(s.sessionId);
    expect((await summary(s.sessionId)).availability).toBe('open');
    await admin.revokeAuthorization('auth-inventory');
    expect(await availability(s.sessionId, 'blocked')).toMatchObject({
      availabilityReason: 'authorization_revoked',
      availabilityRef: 'auth-inventory',
    });
  });
});
