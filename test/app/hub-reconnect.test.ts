// The Hub goes away mid-session: the app says so (a hubConnection event, calls refused with
// hub_unavailable), nothing is lost, and it reconnects by itself when the Hub is back.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { createHub, type Hub } from '../../src-hub/index.js';
import type { CallResult, EventPayload } from '../../src-shared/ipc/contract.js';
import { KEYCHAIN_ACCOUNTS } from '../../src-main/keychain/index.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

let desk: TestDesk;
let revived: Hub | null = null;

beforeAll(async () => {
  desk = await startTestDesk();
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
  await revived?.close();
}, 120_000);

describe('Hub gone mid-session', () => {
  it('reports the loss, refuses Hub actions with a coded error, keeps everything, and reconnects', async () => {
    const events: Array<EventPayload<'hubConnection'>> = [];
    desk.root.bus.subscribe((name, payload) => {
      if (name === 'hubConnection') events.push(payload as EventPayload<'hubConnection'>);
    });
    const d = desk.root.router;
    const ctx = { transport: 'browser' as const };
    const created = await d.call(
      'createTask',
      {
        title: 'Survives',
        authorizations: [{ authorization_ref: 'auth-inventory', tools: ['get_stock'] }],
        write_budget: 3,
        in_flight_limit: 1,
      },
      ctx,
    );
    expect(created.ok).toBe(true);
    const local = desk.root.local;
    if (!local) throw new Error('no local hub');
    const port = local.hub.port;

    await local.hub.close();
    await waitFor(() => events.some((e) => e.state === 'disconnected'), 10_000, 'disconnected event');
    expect(desk.root.gateway.connection().state).toBe('disconnected');
    expect(await d.call('listTasks', {}, ctx)).toMatchObject({
      ok: false,
      error: { code: 'hub_unavailable' },
    });
    expect(await d.call('pauseTask', { task_id: 'any' }, ctx)).toMatchObject({
      ok: false,
      error: { code: 'hub_unavailable' },
    });
    // Local views still answer: the conversation and the idle panel do not need the Hub.
    expect((await d.call('listSessions', {}, ctx)).ok).toBe(true);

    // the same Hub again: its store opens only with the secret key the desk keeps in its keychain
    const secretKey = await desk.keychain.get(`${KEYCHAIN_ACCOUNTS.hubSecretKey}:${local.clientId}`);
    revived = await createHub({
      dataDir: join(desk.dir, 'data', 'hub'),
      port,
      adminToken: local.adminToken,
      ...(secretKey ? { secretKey } : {}),
    });
    await waitFor(() => desk.root.gateway.connection().state === 'connected', 15_000, 'reconnection');
    expect(events.at(-1)?.state).toBe('connected');
    const after = (await d.call('listTasks', {}, ctx)) as CallResult<'listTasks'>;
    const made = created as CallResult<'createTask'>;
    expect(after.ok && made.ok).toBe(true);
    if (after.ok && made.ok) {
      expect(after.value.tasks.map((t) => t.task_id)).toContain(made.value.task_id);
      expect(after.value.tasks.find((t) => t.task_id === made.value.task_id)?.writes_left).toBe(3);
    }
  });
});
