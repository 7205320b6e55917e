// The invocation state machine is checked in one place, and illegal moves never reach the store.
import { readdirSync, readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INVOCATION_STATES } from '../../src-shared/states.js';
import { createHub, type Hub } from '../../src-hub/index.js';
import { IllegalTransitionError, transitionInvocation } from '../../src-hub/invocations/transition.js';
import type { InvocationChange } from '../../src-hub/store/types.js';
import { storeFor } from './store-mode.js';

const root = resolve(import.meta.dirname, '../..');
const hubFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? hubFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );

let hub: Hub;
let dataDir: string;
beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'hub-sm-'));
  hub = await createHub(await storeFor(dataDir));
});
afterAll(async () => {
  await hub.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('invocation state machine', () => {
  it('canTransitionInvocation is called only by transitionInvocation; invocations are written only by the one transaction', () => {
    const files = hubFiles(join(root, 'src-hub'));
    const callers = files
      .filter((f) => /canTransitionInvocation\(/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(callers).toEqual(['src-hub/invocations/transition.ts']);
    const writers = files
      .filter((f) => /(INSERT INTO|UPDATE) invocations/.test(readFileSync(f, 'utf8')))
      .map((f) => relative(root, f));
    expect(writers.filter((f) => !f.endsWith('migrations.ts'))).toEqual([
      'src-hub/store/sql/ops/invocation-change.ts',
    ]);
  });

  it('illegal moves throw before anything is stored (an unknown call is never re-dispatched)', async () => {
    const illegal: Array<[(typeof INVOCATION_STATES)[number] | 'new', (typeof INVOCATION_STATES)[number]]> = [
      ['unknown', 'dispatching'],
      ['succeeded', 'dispatching'],
      ['approved', 'succeeded'],
      ['awaiting_approval', 'dispatching'],
      ['new', 'succeeded'],
      ['unverified', 'dispatching'],
      ['denied', 'approved'],
    ];
    for (const [from, to] of illegal) {
      await expect(
        transitionInvocation(hub.ctx, {
          invocation_id: 'inv_illegal_0001',
          from,
          to,
          audit: { actor: 't', kind: 'k', detail: {} },
        }),
      ).rejects.toBeInstanceOf(IllegalTransitionError);
    }
    expect(await hub.store.listAudit({})).toEqual([]);
  });

  it('a move from a state the record is not in is stale and changes nothing', async () => {
    const r = await transitionInvocation(hub.ctx, {
      invocation_id: 'inv_missing_0001',
      from: 'dispatching',
      to: 'succeeded',
      audit: { actor: 't', kind: 'k', detail: {} },
    });
    expect(r).toEqual({ kind: 'stale', current: null });
  });

  it('hands the store the request with its gates, time and owner added, and changes nothing the caller passed', async () => {
    const seen: InvocationChange[] = [];
    const store = hub.ctx.store;
    const apply = store.applyInvocationChange.bind(store);
    const ctx = {
      ...hub.ctx,
      store: Object.assign(Object.create(store) as typeof store, {
        applyInvocationChange: (change: InvocationChange) => {
          seen.push(change);
          return apply(change);
        },
      }),
    };
    const patch = { reason_message: 'kept' };
    const req = {
      invocation_id: 'inv_missing_0002',
      from: 'approved' as const,
      to: 'dispatching' as const,
      at: '2026-12-02T10:00:00.000Z',
      patch,
      audit: { actor: 't', kind: 'k', detail: {} },
    };
    const before = structuredClone(req);
    expect(await transitionInvocation(ctx, req)).toEqual({ kind: 'stale', current: null });
    expect(req).toEqual(before);
    expect(patch).toEqual({ reason_message: 'kept' });
    const change = seen[0]!;
    expect(Object.keys(change)).toEqual([
      'invocation_id',
      'from',
      'to',
      'at',
      'patch',
      'audit',
      'enrollment',
      'operation_rate',
    ]);
    expect(change.enrollment).toEqual({ refused_to: null });
    expect(change.operation_rate).toEqual({ now_ms: Date.parse(req.at), refused_to: null });
    expect(change.patch).toEqual({
      reason_message: 'kept',
      owner_instance: hub.ctx.instance!.id,
      owner_incarnation: hub.ctx.instance!.incarnation,
    });
    // an outcome passes no gate and carries the time it was given (or now)
    await transitionInvocation(ctx, {
      invocation_id: 'inv_missing_0002',
      from: 'dispatching',
      to: 'succeeded',
      audit: { actor: 't', kind: 'k', detail: {} },
    });
    expect(Object.keys(seen[1]!)).toEqual(['invocation_id', 'from', 'to', 'audit', 'at']);
    expect(Number.isFinite(Date.parse(seen[1]!.at))).toBe(true);
  });
});
