// A governed call's business request is built and signed while its `dispatching` record commits,
// and leaves only once that commit has returned: with the commit's answer held back, the record
// is on disk as `dispatching`, the request is already prepared, and the shop has seen nothing;
// released, the prepared request goes out once, its signature verifies and the call succeeds.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptSchema } from '../../src-shared/hub-api.js';
import { createBusinessEdge } from '../../src-hub/edge.js';
import type { BusinessEdge } from '../../src-hub/context.js';
import type { InvocationChange } from '../../src-hub/store/types.js';
import { newInvocationId, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
const steps: string[] = [];
/** Resolves the held commit answer of the call under test. */
let release: (() => void) | null = null;
let heldId: string | null = null;

beforeAll(async () => {
  const real = createBusinessEdge();
  const edge: BusinessEdge = {
    ...real,
    prepareSend: (input) => {
      if (input.idempotencyKey === heldId) steps.push('request prepared');
      const prepared = real.prepareSend(input);
      return {
        send: (signal) => {
          if (input.idempotencyKey === heldId) steps.push('request sent');
          return prepared.send(signal);
        },
      };
    },
    send: (input) => {
      if (input.idempotencyKey === heldId) steps.push('request built and sent at send time');
      return real.send(input);
    },
  };
  env = await startEnv({ edge });
  const store = env.hub.store;
  const apply = store.applyInvocationChange.bind(store);
  store.applyInvocationChange = async (change: InvocationChange) => {
    const res = await apply(change);
    if (change.invocation_id === heldId && change.from === 'new' && change.to === 'dispatching') {
      const row = env.sql<{ state: string }>(
        'SELECT state FROM invocations WHERE invocation_id = ?',
        change.invocation_id,
      )[0];
      steps.push(`committed: ${row?.state ?? 'no row'}`);
      await new Promise<void>((resolve) => (release = resolve));
    }
    return res;
  };
});
afterAll(async () => {
  await env.close();
});

describe('the request is prepared while dispatching commits, and sent only after', () => {
  it('nothing reaches the shop before the commit returns; the prepared request is the one sent', async () => {
    const runId = await env.run('auth-shop-a');
    heldId = newInvocationId();
    const before = env.demo.shopA.requests().length;
    const ledger = env.demo.shopA.ledger().length;
    const pending = env.invoke({
      authRef: 'auth-shop-a',
      tool: 'update_product_content',
      args: { product_id: 42, description: 'prepared while committing' },
      runId,
      id: heldId,
    });
    while (!release) await new Promise((r) => setTimeout(r, 5));
    // held: the record is on disk, the request is signed, and nothing has left
    await new Promise((r) => setTimeout(r, 100));
    expect(steps).toEqual(['request prepared', 'committed: dispatching']);
    expect(env.demo.shopA.requests().length).toBe(before);
    release();
    const res = await pending;
    expect(res.status).toBe(201);
    expect(ReceiptSchema.parse(res.body)).toMatchObject({ state: 'succeeded', dispatch: 'confirmed' });
    expect(steps).toEqual(['request prepared', 'committed: dispatching', 'request sent']);
    expect(env.demo.shopA.requests().length).toBe(before + 1);
    expect(env.demo.shopA.ledger().length).toBe(ledger + 1);
  });
});
