// A burst of Hub events (as when the event stream replays after a reconnect) reaches the renderer as
// every receipt, but as only a couple of "unresolved changed, read again" signals: the idle panel
// re-reads twice, not once per event.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Receipt } from '../../src-shared/hub-api.js';
import { http } from '../hub/helpers.js';
import { hubConnected, startTestDesk, waitFor, type TestDesk } from './support.js';

let desk: TestDesk;
const events: string[] = [];
beforeAll(async () => {
  desk = await startTestDesk();
  desk.root.bus.subscribe((name) => events.push(name));
  await hubConnected(desk);
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

const count = (name: string) => events.filter((e) => e === name).length;
const quiet = () => new Promise((r) => setTimeout(r, 400));

describe('relay under an event burst', () => {
  it('forwards all 300 receipts and signals the idle panel at most twice', async () => {
    const local = desk.root.local;
    if (!local) throw new Error('the test desk runs the embedded local Hub');
    const agent = (method: string, path: string, body?: unknown) =>
      http(local.url, method, path, { token: local.clientToken, body });
    const found = await agent('POST', '/agent/v1/tools/search', {
      query: 'update product content',
      authorization_refs: ['auth-shop-a'],
      limit: 20,
    });
    const decl = (found.body.declarations as Array<{ tool: string; declaration_revision: string }>).find(
      (d) => d.tool === 'update_product_content',
    );
    if (!decl) throw new Error(`no declaration: ${found.text}`);
    const run = await agent('POST', '/agent/v1/runs', {
      agent_session_id: `s-${randomUUID()}`,
      turn_id: `t-${randomUUID()}`,
      authorization_ref: 'auth-shop-a',
    });
    const invoked = await agent('POST', '/agent/v1/invocations', {
      invocation_id: `inv_${randomUUID()}`,
      run_id: run.body.run_id,
      authorization_ref: 'auth-shop-a',
      tool: 'update_product_content',
      declaration_revision: decl.declaration_revision,
      arguments: { product_id: 42, description: 'burst' },
      host_call_id: `call-${randomUUID()}`,
    });
    expect(invoked.status).toBe(201);
    const receipt = invoked.body as Receipt;
    await waitFor(() => count('invocationChanged') >= 2, 10_000, 'the live receipts');
    await quiet();

    const receiptsBefore = count('invocationChanged');
    const signalsBefore = count('unresolvedChanged');
    const at = new Date().toISOString();
    // one burst: the 300 appends are issued together (the store commits them as one batch)
    await Promise.all(
      Array.from({ length: 300 }, () =>
        local.hub.store.appendEvent(
          local.clientId,
          'invocation.changed',
          { type: 'invocation.changed', receipt },
          at,
        ),
      ),
    );
    local.hub.ctx.bus.notify(local.clientId);
    await waitFor(
      () => count('invocationChanged') - receiptsBefore === 300,
      20_000,
      'all 300 receipts relayed',
    );
    await quiet();
    expect(count('unresolvedChanged') - signalsBefore).toBeGreaterThanOrEqual(1);
    expect(count('unresolvedChanged') - signalsBefore).toBeLessThanOrEqual(2);
  });
});
