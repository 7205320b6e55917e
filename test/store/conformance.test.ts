// The store conformance suite: the same behaviour from the SQLite store (writer thread, group
// commit) and the PostgreSQL store (several instances on one database). Every HubStore method the
// Hub relies on, the exactness of permits under concurrent changes, event seqs in commit order,
// instance leases, and the migration checksum rule.
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MigrationChecksumError, migrationChecksum } from '../../src-hub/store/migrations/index.js';
import { POSTGRES_MIGRATIONS } from '../../src-hub/store/migrations/postgres.js';
import { SQLITE_MIGRATIONS } from '../../src-hub/store/migrations/sqlite.js';
import { StoreUnavailableError } from '../../src-hub/store/errors.js';
import type { HubStore, InvocationChange } from '../../src-hub/store/types.js';
import {
  TASK_VIEW_UNRESOLVED_LIMIT,
  type ReconciliationEvidence,
  type TaskView,
} from '../../src-shared/hub-api.js';
import { INVOCATION_STATES } from '../../src-shared/states.js';
import {
  AT,
  audit,
  dialects,
  dispatchChange,
  invocation,
  permitFor,
  operation,
  pendingApprovalOf,
  seedCatalog,
  seedInvoke,
  task,
  type OpenedStore,
} from './fixtures.js';

const dispatch = dispatchChange;

describe('migrations', () => {
  it('both dialects have the same numbered migrations, with the same names', () => {
    expect(POSTGRES_MIGRATIONS.map((m) => [m.version, m.name])).toEqual(
      SQLITE_MIGRATIONS.map((m) => [m.version, m.name]),
    );
  });
});

for (const dialect of dialects()) {
  describe.skipIf(dialect.unavailable !== null)(
    `store conformance: ${dialect.name}${dialect.unavailable ? ` (skipped: ${dialect.unavailable})` : ''}`,
    () => {
      let opened: OpenedStore;
      let store: HubStore;
      beforeEach(async () => {
        opened = await dialect.open();
        store = opened.store;
      });
      afterEach(async () => {
        await opened.cleanup();
      });

      it('keeps its identity across reopening and records every migration with its checksum', async () => {
        const again = await opened.reopen();
        expect(again.hubId()).toBe(store.hubId());
        expect(again.tokenSalt()).toBe(store.tokenSalt());
        expect(store.hubId()).toMatch(/^hub_/);
        const known = dialect.name === 'sqlite' ? SQLITE_MIGRATIONS : POSTGRES_MIGRATIONS;
        expect((await store.migrations()).map((m) => [m.version, m.checksum])).toEqual(
          known.map((m) => [m.version, migrationChecksum(m)]),
        );
      });

      it('refuses to open when an applied migration was changed', async () => {
        await tamperMigration(dialect.name, opened, store);
        await expect(opened.reopen()).rejects.toBeInstanceOf(MigrationChecksumError);
      });

      it('clients, systems, operations and search', async () => {
        await seedCatalog(store);
        await store.replaceOperations(
          'sys-a',
          [operation('update_thing'), operation('get_product_stock', { effect: 'read' })].map((op) => ({
            system_id: 'sys-a',
            tool: op.tool,
            declaration_revision: op.declaration_revision,
            operation: op,
          })),
          'spec-2',
          [],
          AT,
          audit,
        );
        await expect(
          store.createClient({ client_id: 'desk', name: 'again', token_hash: 'x', created_at: AT }, audit),
        ).rejects.toThrow();
        expect((await store.getClient('desk'))?.name).toBe('desk');
        expect((await store.listClients()).map((c) => c.client_id)).toEqual(['desk']);
        expect((await store.getSystem('sys-a'))?.spec_revision).toBe('spec-2');
        expect((await store.currentOperations(['sys-a'])).map((o) => o.tool)).toEqual([
          'get_product_stock',
          'update_thing',
        ]);
        const hits = await store.searchOperations(['stock'], ['sys-a'], 10);
        expect(hits.map((h) => h.op.tool)).toEqual(['get_product_stock']);
        expect(hits[0]!.score).toBeGreaterThanOrEqual(0);
        const prefix = await store.searchOperations(['upd', 'stock'], ['sys-a'], 10);
        expect(prefix.map((h) => h.op.tool).sort()).toEqual(['get_product_stock', 'update_thing']);
        expect(await store.searchOperations(['nothing'], ['sys-a'], 10)).toEqual([]);
      });

      it("an invoke's reads: the rows the single reads give, read together; a taken id reads nothing more", async () => {
        const q = await seedInvoke(store);
        expect(await store.invokeReads(q)).toEqual({
          existing: null,
          run: await store.getRun('run_1'),
          authorization: await store.getAuthorization('auth-a'),
          granted: true,
          operation: await store.currentOperation('sys-a', 'update_thing'),
          task: await store.getTask(q.task_id),
          system: await store.getSystem('sys-a'),
          // the configuration generation, read with them (the invoke confirms a remembered token by it)
          config_generation: await store.configGeneration(),
        });
        // not granted to this client: neither the declaration nor the system is answered
        const other = await store.invokeReads({ ...q, client_id: 'someone-else', task_id: null });
        expect(other).toMatchObject({ granted: false, operation: null, system: null, task: null });
        expect(other.authorization?.authorization_ref).toBe('auth-a');
        // nothing under the names asked for
        expect(
          await store.invokeReads({ ...q, run_id: 'nope', authorization_ref: 'nope', task_id: 'nope' }),
        ).toEqual({
          existing: null,
          run: null,
          authorization: null,
          granted: false,
          operation: null,
          task: null,
          system: null,
          config_generation: await store.configGeneration(),
        });
        const rec = invocation({ invocation_id: 'inv_taken' });
        await store.applyInvocationChange(dispatch(rec));
        const taken = await store.invokeReads({ ...q, invocation_id: 'inv_taken' });
        expect(taken.existing?.state).toBe('dispatching');
        expect(taken).toMatchObject({ run: null, authorization: null, operation: null, task: null });
        expect(taken.config_generation).toBe(await store.configGeneration());
      });

      it('systems keep allow_insecure_http; sealed secrets and their meta are replaced in one write', async () => {
        await seedCatalog(store);
        const sys = (await store.getSystem('sys-a'))!;
        expect(sys.allow_insecure_http).toBe(false);
        await store.upsertSystem({ ...sys, allow_insecure_http: true }, AT, audit);
        expect((await store.getSystem('sys-a'))?.allow_insecure_http).toBe(true);
        await store.resealSecrets(
          [{ system_id: 'sys-a', signing_secret: 'sealed-2' }],
          { secret_key_check: 'check-2' },
          { actor: 'test', kind: 'hub.secrets_resealed', detail: {} },
        );
        expect((await store.getSystem('sys-a'))?.signing_secret).toBe('sealed-2');
        expect(await store.getMeta('secret_key_check')).toBe('check-2');
        expect((await store.listAudit({})).map((a) => a.kind)).toContain('hub.secrets_resealed');
        // one transaction: a failing part leaves every part unchanged
        await expect(
          store.resealSecrets(
            [
              { system_id: 'sys-a', signing_secret: 'sealed-3' },
              { system_id: 'sys-a', signing_secret: null as unknown as string },
            ],
            { secret_key_check: 'check-3' },
            { actor: 'test', kind: 'hub.secrets_resealed', detail: {} },
          ),
        ).rejects.toThrow();
        expect((await store.getSystem('sys-a'))?.signing_secret).toBe('sealed-2');
        expect(await store.getMeta('secret_key_check')).toBe('check-2');
      });

      it('authorizations: grants are idempotent; a change is a compare-and-set on the revision, with an event per grantee', async () => {
        await seedCatalog(store);
        await store.grant('auth-a', 'desk', audit);
        expect(await store.grantees('auth-a')).toEqual(['desk']);
        expect(await store.isGranted('auth-a', 'desk')).toBe(true);
        expect(await store.isGranted('auth-a', 'other')).toBe(false);
        const cur = (await store.getAuthorization('auth-a'))!;
        const next = { ...cur, state: 'revoked' as const, revision: cur.revision + 1, updated_at: AT };
        const change = {
          next,
          expected_revision: cur.revision,
          audit,
          event: { type: 'authorization.changed' },
        };
        expect(await store.updateAuthorization(change)).toBe(true);
        expect(await store.updateAuthorization(change)).toBe(false); // the revision moved
        expect((await store.getAuthorization('auth-a'))?.state).toBe('revoked');
        await store.flushEvents();
        const events = await store.listEvents('desk', 0, 10);
        expect(events.map((e) => e.type)).toEqual(['authorization.changed']);
      });

      it('an invocation change is a compare-and-set: a second creation or a move from another state is stale', async () => {
        await seedCatalog(store);
        const rec = invocation();
        const first = await store.applyInvocationChange(dispatch(rec));
        expect(first.kind).toBe('applied');
        const twice = await store.applyInvocationChange(dispatch(rec));
        expect(twice.kind).toBe('stale');
        const wrongFrom = await store.applyInvocationChange({
          ...dispatch(rec),
          from: 'approved',
          to: 'dispatching',
          create: undefined,
        });
        expect(wrongFrom).toEqual({
          kind: 'stale',
          current: expect.objectContaining({ state: 'dispatching' }),
        });
        const done = await store.applyInvocationChange({
          invocation_id: rec.invocation_id,
          from: 'dispatching',
          to: 'succeeded',
          at: AT,
          patch: { dispatch: 'confirmed', result: { ok: true }, business_status: 200 },
          audit,
        });
        expect(done.kind).toBe('applied');
        const stored = (await store.getInvocation(rec.invocation_id))!;
        expect(stored).toMatchObject({ state: 'succeeded', dispatch: 'confirmed', result: { ok: true } });
        await store.flushEvents();
        expect((await store.listEvents('desk', 0, 10)).map((e) => e.type)).toEqual([
          'invocation.changed',
          'invocation.changed',
        ]);
      });

      it('permits are exact under concurrent changes: 40 writes racing for a budget of 7', async () => {
        await seedCatalog(store);
        const t = task({ budget: 7 });
        await store.createTask(t, audit);
        const results = await Promise.all(
          Array.from({ length: 40 }, () =>
            store.applyInvocationChange(
              dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
            ),
          ),
        );
        expect(results.filter((r) => r.kind === 'applied')).toHaveLength(7);
        const refused = results.filter((r) => r.kind === 'refused');
        expect(refused).toHaveLength(33);
        expect(new Set(refused.map((r) => (r.kind === 'refused' ? r.refusal.code : '')))).toEqual(
          new Set(['budget_exhausted']),
        );
        const after = (await store.getTask(t.task_id))!;
        expect(after.writes_used).toBe(7);
        expect(after.permits_granted).toBe(7);
        expect(await store.listPermits(t.task_id)).toHaveLength(7);
        const usage = await store.taskUsage(t.task_id, Date.parse(AT), null);
        expect(usage.in_flight).toBe(7);
        expect(usage.counts).toEqual({ dispatching: 7, not_dispatched: 33 });
      });

      it("an operator's attestation settles an unknown call through the same compare-and-set, counted as settled by a person", async () => {
        await seedCatalog(store);
        const t = task({ budget: 5 });
        await store.createTask(t, audit);
        const sent = await store.applyInvocationChange(
          dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
        );
        if (sent.kind !== 'applied') throw new Error('not dispatched');
        const id = sent.record.invocation_id;
        await store.applyInvocationChange({
          invocation_id: id,
          from: 'dispatching',
          to: 'unknown',
          at: AT,
          release_permit: { now_ms: Date.parse(AT) + 1 },
          audit,
        });
        const attestation = {
          invocation_id: id,
          to: 'failed' as const,
          at: AT,
          patch: {
            reason_code: 'operator_attested',
            reason_message: 'checked: it did not happen',
            add_evidence: {
              checked_at: AT,
              source: 'operator_attested' as const,
              outcome: 'failed' as const,
              http_status: null,
              evidence_digest: null,
              detail: 'checked: it did not happen',
            },
          },
          audit: { actor: 'client:desk', kind: 'invocation.attested', detail: { attested_by: 'op@x' } },
        };
        // A stale expectation changes nothing (someone settled or moved it meanwhile).
        expect((await store.applyInvocationChange({ ...attestation, from: 'unverified' })).kind).toBe(
          'stale',
        );
        const done = await store.applyInvocationChange({ ...attestation, from: 'unknown' });
        expect(done.kind).toBe('applied');
        const stored = (await store.getInvocation(id))!;
        expect(stored).toMatchObject({ state: 'failed', reason_code: 'operator_attested' });
        expect(stored.reconciliation.at(-1)).toMatchObject({
          source: 'operator_attested',
          outcome: 'failed',
        });
        const usage = await store.taskUsage(t.task_id, Date.parse(AT), null);
        expect(usage.counts).toEqual({ failed: 1 });
        expect(usage.settled_by_operator).toEqual({ succeeded: 0, failed: 1 });
        expect(usage.unresolved).toEqual([]);
        expect((await store.getTask(t.task_id))!.writes_used).toBe(1);
        const kinds = (await store.listAudit({ invocation_id: id })).map((e) => e.kind);
        expect(kinds.filter((k) => k === 'invocation.attested')).toHaveLength(1);
      });

      it('in-flight is exact under concurrent changes, and a released permit frees its slot', async () => {
        await seedCatalog(store);
        const t = task({ budget: 100, inFlight: 3 });
        await store.createTask(t, audit);
        const results = await Promise.all(
          Array.from({ length: 20 }, () =>
            store.applyInvocationChange(
              dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
            ),
          ),
        );
        const applied = results.filter((r) => r.kind === 'applied');
        expect(applied).toHaveLength(3);
        const first = applied[0]!;
        if (first.kind !== 'applied') throw new Error('unreachable');
        await store.applyInvocationChange({
          invocation_id: first.record.invocation_id,
          from: 'dispatching',
          to: 'succeeded',
          at: AT,
          release_permit: { now_ms: Date.parse(AT) + 1 },
          audit,
        });
        const next = await store.applyInvocationChange(
          dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
        );
        expect(next.kind).toBe('applied');
        expect((await store.taskUsage(t.task_id, Date.parse(AT), null)).in_flight).toBe(3);
      });

      it('a paused task grants nothing, and pausing is a compare-and-set', async () => {
        await seedCatalog(store);
        const t = task();
        await store.createTask(t, audit);
        const paused = await store.changeTaskState({
          task_id: t.task_id,
          from: 'active',
          to: 'paused',
          at: AT,
          audit,
        });
        expect(paused?.paused_at).toBe(AT);
        expect(
          await store.changeTaskState({ task_id: t.task_id, from: 'active', to: 'paused', at: AT, audit }),
        ).toBeNull();
        const r = await store.applyInvocationChange(
          dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
        );
        expect(r.kind === 'refused' && r.refusal.code).toBe('task_paused');
        expect((await store.getTask(t.task_id))?.writes_used).toBe(0);
      });

      it('a pause ordered after a permit is stamped no earlier than that permit', async () => {
        await seedCatalog(store);
        const t = task();
        await store.createTask(t, audit);
        // the permit's time was taken (by its Hub) after the pause's request time, but it committed first
        const later = Date.parse(AT) + 5_000;
        const granted = await store.applyInvocationChange(
          dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id, later) }),
        );
        expect(granted.kind).toBe('applied');
        const paused = await store.changeTaskState({
          task_id: t.task_id,
          from: 'active',
          to: 'paused',
          at: AT,
          audit: { ...audit, kind: 'task.paused' },
        });
        expect(paused?.paused_at).toBe(new Date(later).toISOString());
        const permits = await store.listPermits(t.task_id);
        expect(permits.every((p) => p.granted_at_ms <= Date.parse(paused!.paused_at!))).toBe(true);
        const entry = (await store.listAudit({ task_id: t.task_id })).find((a) => a.kind === 'task.paused');
        expect(entry?.at).toBe(new Date(later).toISOString());
        // a pause with nothing granted after its request keeps the request's time
        const resumed = await store.changeTaskState({
          task_id: t.task_id,
          from: 'paused',
          to: 'active',
          at: new Date(later + 1_000).toISOString(),
          audit: { ...audit, kind: 'task.active' },
        });
        expect(resumed?.paused_at).toBeNull();
        const again = await store.changeTaskState({
          task_id: t.task_id,
          from: 'active',
          to: 'paused',
          at: new Date(later + 2_000).toISOString(),
          audit: { ...audit, kind: 'task.paused' },
        });
        expect(again?.paused_at).toBe(new Date(later + 2_000).toISOString());
      });

      it('enrollment: the first task-bound call enrolls its session; a later call without the task is refused', async () => {
        await seedCatalog(store);
        const t = task();
        await store.createTask(t, audit);
        const session = `sess-${randomUUID()}`;
        const gate = { enrollment: { refused_to: 'not_dispatched' as const } };
        const first = await store.applyInvocationChange(
          dispatch(invocation({ task_id: t.task_id, agent_session_id: session }), {
            ...gate,
            permit: permitFor(t.task_id),
          }),
        );
        expect(first.kind).toBe('applied');
        expect((await store.getEnrollment('desk', session))?.task_id).toBe(t.task_id);
        const without = await store.applyInvocationChange(
          dispatch(invocation({ agent_session_id: session }), gate),
        );
        expect(without.kind === 'refused' && without.refusal.code).toBe('task_required');
      });

      it("an operation's declared rate limit is exact under concurrent dispatches", async () => {
        const op = operation('update_thing', { rate_limit: { count: 3, window: '1h' } });
        await seedCatalog(store, op);
        const nowMs = Date.parse(AT);
        const results = await Promise.all(
          Array.from({ length: 12 }, () =>
            store.applyInvocationChange(
              dispatch(invocation({ operation: op }), {
                operation_rate: { now_ms: nowMs, refused_to: 'not_dispatched' },
              }),
            ),
          ),
        );
        expect(results.filter((r) => r.kind === 'applied')).toHaveLength(3);
        expect(results.filter((r) => r.kind === 'refused' && r.refusal.code === 'rate_limited')).toHaveLength(
          9,
        );
      });

      it('approvals: created with the call, decided once', async () => {
        await seedCatalog(store);
        const rec = invocation();
        const approvalId = `apr_${randomUUID()}`;
        await store.applyInvocationChange({
          invocation_id: rec.invocation_id,
          from: 'new',
          to: 'awaiting_approval',
          at: AT,
          create: rec,
          create_approval: pendingApprovalOf(rec, {
            approval_id: approvalId,
            arguments_preview: rec.arguments,
            prompt: 'ok?',
          }),
          audit,
        });
        expect((await store.listApprovals('pending')).map((a) => a.approval_id)).toEqual([approvalId]);
        const decide = (decisionId: string): InvocationChange => ({
          invocation_id: rec.invocation_id,
          from: 'awaiting_approval',
          to: 'approved',
          at: AT,
          decide_approval: {
            approval_id: approvalId,
            decision_id: decisionId,
            state: 'approved',
            decided_by: 'op',
            note: null,
          },
          audit,
        });
        const [a, b] = await Promise.all([
          store.applyInvocationChange(decide('d1')),
          store.applyInvocationChange(decide('d2')),
        ]);
        expect([a.kind, b.kind].sort()).toEqual(['applied', 'stale']);
        expect(await store.getApproval(approvalId)).toMatchObject({ state: 'approved' });
        expect(await store.listApprovals('pending')).toEqual([]);
      });

      it('task views: every change is covered by a later view, views never go back, the unresolved list is capped', async () => {
        await seedCatalog(store);
        const t = task({ budget: 1000, inFlight: 1000 });
        await store.createTask(t, audit);
        const n = TASK_VIEW_UNRESOLVED_LIMIT + 30;
        const ids: string[] = [];
        await Promise.all(
          Array.from({ length: n }, () => {
            const rec = invocation({ task_id: t.task_id });
            ids.push(rec.invocation_id);
            return store.applyInvocationChange(dispatch(rec, { permit: permitFor(t.task_id) }));
          }),
        );
        await store.flushEvents(); // every view of those changes is published
        const views = (await store.listEvents('desk', 0, 10_000))
          .filter((e) => e.type === 'task.changed')
          .map((e) => (e.payload as { task: TaskView }).task)
          .filter((v) => v.task_id === t.task_id);
        expect(views.length).toBeGreaterThanOrEqual(2); // the creation's, then at least one after the calls
        const granted = views.map((v) => v.permits_granted);
        expect([...granted].sort((x, y) => x - y)).toEqual(granted); // never an older state after a newer one
        const last = views.at(-1)!;
        expect(last.permits_granted).toBe(n);
        expect(last.in_flight).toBe(n);
        expect(last.counts.dispatching).toBe(n);
        expect(last.unresolved_total).toBe(n);
        // the oldest calls (all created at AT: then by id), at most the limit
        expect(last.unresolved.map((u) => u.invocation_id)).toEqual(
          [...ids].sort().slice(0, TASK_VIEW_UNRESOLVED_LIMIT),
        );
        // a pause publishes its view too
        await store.changeTaskState({ task_id: t.task_id, from: 'active', to: 'paused', at: AT, audit });
        await store.flushEvents();
        const after = (await store.listEvents('desk', 0, 10_000)).filter((e) => e.type === 'task.changed');
        expect((after.at(-1)!.payload as { task: TaskView }).task.state).toBe('paused');
      });

      it("a task's calls per state, kept by every change, agree with a count of its calls after random grants, refusals, releases, refunds and resolutions", async () => {
        await seedCatalog(store);
        const t = task({ budget: 25, inFlight: 1000 });
        const other = task({ budget: 1000, inFlight: 1000 });
        await store.createTask(t, audit);
        await store.createTask(other, audit);
        const random = seeded(17);
        const byState = new Map<string, string[]>(); // the calls of t in each state, as the test moved them
        const move = (id: string, from: string, to: string) => {
          byState.set(
            from,
            (byState.get(from) ?? []).filter((x) => x !== id),
          );
          byState.set(to, [...(byState.get(to) ?? []), id]);
        };
        const pick = (state: string) => {
          const ids = byState.get(state) ?? [];
          return ids.length === 0 ? null : ids[Math.floor(random() * ids.length)]!;
        };
        const step = async (): Promise<void> => {
          const r = random();
          const taskId = random() < 0.15 ? other.task_id : t.task_id;
          if (r < 0.4) {
            const rec = invocation({ task_id: taskId });
            const res = await store.applyInvocationChange(dispatch(rec, { permit: permitFor(taskId) }));
            if (taskId === t.task_id && res.kind !== 'stale')
              move(rec.invocation_id, 'new', res.record.state);
            return;
          }
          if (r < 0.5) {
            const rec = invocation({ task_id: taskId });
            await store.applyInvocationChange(dispatch(rec, { to: 'awaiting_approval', patch: {} }));
            if (taskId === t.task_id) move(rec.invocation_id, 'new', 'awaiting_approval');
            return;
          }
          const [from, to, extra]: [string, InvocationChange['to'], Partial<InvocationChange>] =
            r < 0.6
              ? ['dispatching', 'succeeded', { release_permit: { now_ms: Date.parse(AT) + 1 } }]
              : r < 0.68
                ? ['dispatching', 'failed', { release_permit: { now_ms: Date.parse(AT) + 1 } }]
                : r < 0.78
                  ? [
                      'dispatching',
                      'not_dispatched',
                      { release_permit: { now_ms: Date.parse(AT) + 1, refund: true } },
                    ]
                  : r < 0.86
                    ? ['dispatching', 'unknown', { release_permit: { now_ms: Date.parse(AT) + 1 } }]
                    : r < 0.92
                      ? ['unknown', random() < 0.5 ? 'succeeded' : 'unverified', {}]
                      : ['awaiting_approval', 'denied', {}];
          const id = pick(from);
          if (!id) return;
          move(id, from, 'moving'); // not to be picked by a concurrent step until this move is done
          const res = await store.applyInvocationChange({
            invocation_id: id,
            from: from as InvocationChange['from'],
            to,
            at: AT,
            audit,
            ...extra,
          });
          expect(res.kind).toBe('applied');
          move(id, 'moving', to);
        };
        for (let round = 0; round < 30; round++) await Promise.all(Array.from({ length: 8 }, step));
        const usage = await store.taskUsage(t.task_id, Date.parse(AT), null);
        const expected: Record<string, number> = {};
        for (const [state, ids] of byState)
          if (ids.length > 0 && state !== 'new') expected[state] = ids.length;
        expect(usage.counts).toEqual(expected);
        // and a count of the stored calls themselves
        const counted: Record<string, number> = {};
        for (const state of INVOCATION_STATES) {
          const n = (await store.listInvocationsInState(state)).filter((i) => i.task_id === t.task_id).length;
          if (n > 0) counted[state] = n;
        }
        expect(usage.counts).toEqual(counted);
        expect(Object.keys(counted).length).toBeGreaterThanOrEqual(5); // the walk reached most states
      });

      it('migration 9 counts the calls a store already had when it is upgraded', async () => {
        await seedCatalog(store);
        const t = task({ budget: 3, inFlight: 100 });
        await store.createTask(t, audit);
        for (let i = 0; i < 5; i++) {
          const res = await store.applyInvocationChange(
            dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
          );
          if (i === 0 && res.kind === 'applied')
            await store.applyInvocationChange({
              invocation_id: res.record.invocation_id,
              from: 'dispatching',
              to: 'succeeded',
              at: AT,
              release_permit: { now_ms: Date.parse(AT) + 1 },
              audit,
            });
        }
        const before = (await store.taskUsage(t.task_id, Date.parse(AT), null)).counts;
        expect(before).toEqual({ succeeded: 1, dispatching: 2, not_dispatched: 2 });
        // the store as a Hub before migration 9 left it: no counters, migration 9 not applied
        await store.close();
        await rawSql(dialect.name, opened, [
          'DROP TABLE task_state_counts',
          'DELETE FROM schema_migrations WHERE version = 9',
        ]);
        const upgraded = await opened.reopen();
        expect((await upgraded.migrations()).map((m) => m.version)).toContain(9);
        expect((await upgraded.taskUsage(t.task_id, Date.parse(AT), null)).counts).toEqual(before);
        // and it keeps counting from there
        await upgraded.applyInvocationChange(
          dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
        );
        expect((await upgraded.taskUsage(t.task_id, Date.parse(AT), null)).counts).toEqual({
          ...before,
          not_dispatched: 3,
        });
      });

      it('migration 11 keeps the permits a store had, drops their index by invocation, and releases by permit id', async () => {
        await seedCatalog(store);
        const t = task({ budget: 5, inFlight: 100 });
        await store.createTask(t, audit);
        const granted: string[] = [];
        for (let i = 0; i < 3; i++) {
          const res = await store.applyInvocationChange(
            dispatch(invocation({ task_id: t.task_id }), { permit: permitFor(t.task_id) }),
          );
          if (res.kind !== 'applied') throw new Error(`not applied: ${res.kind}`);
          granted.push(res.record.invocation_id);
        }
        const finish = (s: HubStore, id: string, refund: boolean) =>
          s.applyInvocationChange({
            invocation_id: id,
            from: 'dispatching',
            to: refund ? 'not_dispatched' : 'succeeded',
            at: AT,
            release_permit: { now_ms: Date.parse(AT) + 1, ...(refund ? { refund: true } : {}) },
            audit,
          });
        expect((await finish(store, granted[0]!, false)).kind).toBe('applied');
        const before = await store.listPermits(t.task_id);
        // the store as a Hub before migration 11 left it: permits unique by invocation, 11 not applied
        await store.close();
        await rawSql(dialect.name, opened, {
          sqlite: [
            `CREATE TABLE permits_v1 (permit_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, invocation_id TEXT NOT NULL UNIQUE,
                   effect TEXT NOT NULL, granted_at_ms INTEGER NOT NULL, released_at_ms INTEGER)`,
            'INSERT INTO permits_v1 SELECT permit_id, task_id, invocation_id, effect, granted_at_ms, released_at_ms FROM permits',
            'DROP TABLE permits',
            'ALTER TABLE permits_v1 RENAME TO permits',
            'CREATE INDEX permits_granted ON permits (task_id, granted_at_ms)',
            'DELETE FROM schema_migrations WHERE version = 11',
          ],
          postgres: [
            'ALTER TABLE permits ADD CONSTRAINT permits_invocation_id_key UNIQUE (invocation_id)',
            'DELETE FROM schema_migrations WHERE version = 11',
          ],
        });
        expect(await permitIndexesOnInvocation(dialect.name, opened)).toBe(1);
        const upgraded = await opened.reopen();
        expect((await upgraded.migrations()).map((m) => m.version)).toContain(11);
        expect(await permitIndexesOnInvocation(dialect.name, opened)).toBe(0);
        expect(await upgraded.listPermits(t.task_id)).toEqual(before);
        // the permits granted before the upgrade are released (and refunded) by the calls' permit ids
        expect((await finish(upgraded, granted[1]!, false)).kind).toBe('applied');
        expect((await finish(upgraded, granted[2]!, true)).kind).toBe('applied');
        const after = await upgraded.listPermits(t.task_id);
        expect(after.map((p) => p.invocation_id).sort()).toEqual(granted.slice(0, 2).sort());
        expect(after.every((p) => p.released_at_ms !== null)).toBe(true);
        const usage = await upgraded.taskUsage(t.task_id, Date.parse(AT), null);
        expect(usage.in_flight).toBe(0);
        expect((await upgraded.getTask(t.task_id))?.writes_used).toBe(2);
      });

      it('migration 13 indexes by task only the calls and audit entries of tasks, and a task reads its own as before', async () => {
        await seedCatalog(store);
        const t = task({ budget: 5, inFlight: 100 });
        await store.createTask(t, audit);
        const tasked = invocation({ task_id: t.task_id });
        expect(
          (await store.applyInvocationChange(dispatch(tasked, { permit: permitFor(t.task_id) }))).kind,
        ).toBe('applied');
        expect((await store.applyInvocationChange(dispatch(invocation()))).kind).toBe('applied');
        const usage = await store.taskUsage(t.task_id, Date.parse(AT), null);
        expect(usage.unresolved.map((u) => u.invocation_id)).toEqual([tasked.invocation_id]);
        const entries = await store.listAudit({ task_id: t.task_id });
        expect(entries.map((e) => e.kind)).toContain('invocation.created');
        // the store as a Hub before migration 13 left it: both indexes cover every row, 13 not applied
        await store.close();
        await rawSql(dialect.name, opened, [
          'DROP INDEX invocations_task_created',
          'CREATE INDEX invocations_task_created ON invocations (task_id, state, created_at, invocation_id)',
          'DROP INDEX audit_task',
          'CREATE INDEX audit_task ON audit (task_id)',
          'DELETE FROM schema_migrations WHERE version = 13',
        ]);
        expect(await taskIndexesOnlyForTasks(dialect.name, opened)).toEqual([]);
        const upgraded = await opened.reopen();
        expect((await upgraded.migrations()).map((m) => m.version)).toContain(13);
        expect(await taskIndexesOnlyForTasks(dialect.name, opened)).toEqual([
          'audit_task',
          'invocations_task_created',
        ]);
        expect(await upgraded.taskUsage(t.task_id, Date.parse(AT), null)).toEqual(usage);
        expect(await upgraded.listAudit({ task_id: t.task_id })).toEqual(entries);
        // a call of the task after the upgrade is indexed, and read, as before
        const later = invocation({ task_id: t.task_id, created_at: '2026-11-30T10:00:01.000Z' });
        expect(
          (await upgraded.applyInvocationChange(dispatch(later, { permit: permitFor(t.task_id) }))).kind,
        ).toBe('applied');
        const after = await upgraded.taskUsage(t.task_id, Date.parse(AT), null);
        expect(after.unresolved.map((u) => u.invocation_id)).toEqual([
          tasked.invocation_id,
          later.invocation_id,
        ]);
      });

      it('a change of a call updates only the columns it changes: never the compiled operation or the arguments again', async () => {
        await seedCatalog(store);
        const t = task({ budget: 5, inFlight: 100 });
        await store.createTask(t, audit);
        const rec = invocation({ task_id: t.task_id });
        expect(
          (await store.applyInvocationChange(dispatch(rec, { permit: permitFor(t.task_id) }))).kind,
        ).toBe('applied');
        // from here on, any UPDATE naming the operation or the arguments fails the transaction
        await store.close();
        await rawSql(dialect.name, opened, {
          sqlite: [
            `CREATE TRIGGER refuse_rewrite BEFORE UPDATE OF operation_json, arguments_json ON invocations
                   BEGIN SELECT RAISE(ABORT, 'rewritten'); END`,
          ],
          postgres: [
            `CREATE TRIGGER refuse_rewrite BEFORE UPDATE OF operation_json, arguments_json ON invocations
                   FOR EACH ROW EXECUTE FUNCTION bailing_refuse_change('rewritten')`,
          ],
        });
        const again = await opened.reopen();
        const evidence: ReconciliationEvidence = {
          checked_at: AT,
          source: 'dispatch_response',
          outcome: 'succeeded',
          http_status: 200,
          evidence_digest: null,
          detail: 'checked',
        };
        const done = await again.applyInvocationChange({
          invocation_id: rec.invocation_id,
          from: 'dispatching',
          to: 'succeeded',
          at: '2026-11-30T10:00:09.000Z',
          patch: {
            dispatch: 'confirmed',
            result: { ok: true, items: [1, 2] },
            business_status: 200,
            add_evidence: evidence,
          },
          release_permit: { now_ms: Date.parse(AT) + 9 },
          audit,
        });
        expect(done.kind).toBe('applied');
        const stored = await again.getInvocation(rec.invocation_id);
        expect(stored).toEqual({
          ...rec,
          state: 'succeeded',
          dispatch: 'confirmed',
          result: { ok: true, items: [1, 2] },
          business_status: 200,
          reconciliation: [evidence],
          permit_id: stored!.permit_id,
          remote_task_id: null,
          updated_at: '2026-11-30T10:00:09.000Z',
        });
        expect(stored!.permit_id).not.toBeNull();
        // a change that sets nothing but the state still moves it (and its time)
        const next = await again.applyInvocationChange({
          invocation_id: rec.invocation_id,
          from: 'succeeded',
          to: 'unverified',
          at: '2026-11-30T10:00:10.000Z',
          audit,
        });
        expect(next.kind).toBe('applied');
        expect(await again.getInvocation(rec.invocation_id)).toEqual({
          ...stored,
          state: 'unverified',
          updated_at: '2026-11-30T10:00:10.000Z',
        });
      });

      it('event seqs: strictly increasing per reader, never a smaller seq appearing after a larger one was read', async () => {
        const again = await opened.reopen(); // a second instance (or process) appending at the same time
        const seen: number[] = [];
        let reading = true;
        const reader = (async () => {
          let last = 0;
          while (reading) {
            for (const e of await store.listEvents('c', last, 1000)) {
              seen.push(e.seq);
              last = e.seq;
            }
            await new Promise((r) => setTimeout(r, 2));
          }
        })();
        await Promise.all(
          Array.from({ length: 60 }, (_, i) =>
            (i % 2 ? again : store).appendEvent('c', 'test.event', { i }, AT),
          ),
        );
        await Promise.all([store.flushEvents(), again.flushEvents()]);
        reading = false;
        await reader;
        const all = (await store.listEvents('c', 0, 1000)).map((e) => e.seq);
        expect(all).toHaveLength(60);
        expect(new Set(seen).size).toBe(seen.length);
        expect([...seen].sort((x, y) => x - y)).toEqual(seen);
        // the poller saw a prefix-consistent view: whatever it missed it would find after its last seq
        let last = 0;
        for (const e of await store.listEvents('c', 0, 1000)) {
          if (e.seq <= (seen.at(-1) ?? 0)) expect(seen).toContain(e.seq);
          last = e.seq;
        }
        expect(last).toBe(all.at(-1));
        expect([...all].sort((x, y) => x - y)).toEqual(all);
      });

      it('event pages, other writers, retention and the horizon', async () => {
        for (let i = 0; i < 5; i++)
          await store.appendEvent('a', 'test.event', { i, pad: 'x'.repeat(100) }, AT);
        await store.appendEvent('b', 'test.event', { i: 0 }, '2026-01-01T00:00:00.000Z');
        await store.flushEvents();
        const all = await store.listEvents('a', 0, 100);
        expect(all.map((e) => e.payload.i)).toEqual([0, 1, 2, 3, 4]);
        const page = await store.readEventPage('a', 0, { maxEvents: 10, maxBytes: 150 });
        expect(page).toHaveLength(2); // the event that crosses the byte bound is the last one
        expect(JSON.parse(page[0]!.payload_json).i).toBe(0);
        const polled = await store.eventClientsAfter(all[2]!.seq);
        expect(polled.clients.sort()).toEqual(['a', 'b']);
        expect(await store.eventClientsAfter(polled.latest)).toEqual({ latest: polled.latest, clients: [] });
        const pruned = await store.pruneEvents({ before: '2026-06-01T00:00:00.000Z', keepPerClient: 2 });
        expect(pruned).toEqual({ deleted: 4, clients: 2 });
        expect((await store.listEvents('a', 0, 100)).map((e) => e.seq)).toEqual(
          all.slice(-2).map((e) => e.seq),
        );
        expect(await store.eventHorizon('a')).toBe(all[2]!.seq);
        expect(await store.listEvents('b', 0, 100)).toEqual([]);
      });

      it('instance leases: incarnations fence earlier processes; only calls of a gone owner are orphaned', async () => {
        await seedCatalog(store);
        const one = await store.registerInstance({
          instance_id: 'hub-1',
          host: 'h',
          pid: 1,
          started_at: AT,
          lease_ms: 60_000,
        });
        expect(one.incarnation).toBe(1);
        const live = invocation({ owner_instance: 'hub-1', owner_incarnation: 1 });
        await store.applyInvocationChange(
          dispatch(live, { patch: { dispatch: 'attempted', owner_instance: 'hub-1', owner_incarnation: 1 } }),
        );
        const ownerless = invocation();
        await store.applyInvocationChange(dispatch(ownerless));
        expect((await store.listOrphanedDispatching()).map((r) => r.invocation_id)).toEqual([
          ownerless.invocation_id,
        ]);
        // a sibling's recovery never touches a live owner's call
        const guarded = await store.applyInvocationChange({
          invocation_id: live.invocation_id,
          from: 'dispatching',
          to: 'unknown',
          at: AT,
          only_if_orphaned: true,
          audit,
        });
        expect(guarded.kind).toBe('stale');
        // a restart under the same name is the next incarnation: the earlier one's calls are orphaned at once
        const two = await store.registerInstance({
          instance_id: 'hub-1',
          host: 'h',
          pid: 2,
          started_at: AT,
          lease_ms: 60_000,
        });
        expect(two.incarnation).toBe(2);
        expect(await store.renewInstanceLease('hub-1', 1, 60_000)).toBe(false);
        expect(await store.renewInstanceLease('hub-1', 2, 60_000)).toBe(true);
        expect((await store.listOrphanedDispatching()).map((r) => r.invocation_id).sort()).toEqual(
          [live.invocation_id, ownerless.invocation_id].sort(),
        );
        // an expired lease orphans; a stopped instance too
        const three = await store.registerInstance({
          instance_id: 'hub-3',
          host: 'h',
          pid: 3,
          started_at: AT,
          lease_ms: 1,
        });
        const short = invocation();
        await store.applyInvocationChange(
          dispatch(short, {
            patch: { dispatch: 'attempted', owner_instance: 'hub-3', owner_incarnation: three.incarnation },
          }),
        );
        await new Promise((r) => setTimeout(r, 20));
        expect((await store.listOrphanedDispatching()).map((r) => r.invocation_id)).toContain(
          short.invocation_id,
        );
        await store.stopInstance('hub-1', 2, AT);
        expect(await store.renewInstanceLease('hub-1', 2, 60_000)).toBe(false);
        const recovered = await store.applyInvocationChange({
          invocation_id: live.invocation_id,
          from: 'dispatching',
          to: 'unknown',
          at: AT,
          only_if_orphaned: true,
          audit,
        });
        expect(recovered.kind).toBe('applied');
        expect((await store.listInstances()).map((i) => i.instance_id)).toEqual(['hub-1', 'hub-3']);
      });

      it('a write that fails is refused alone: the writes committed with it are kept', async () => {
        const results = await Promise.allSettled(
          ['c1', 'c2', 'c1', 'c3', 'c2'].map((id) =>
            store.createClient({ client_id: id, name: id, token_hash: 'h', created_at: AT }, audit),
          ),
        );
        // one of each pair of duplicates wins (which one is the store's order of commits)
        const ok = (i: number) => (results[i]!.status === 'fulfilled' ? 1 : 0);
        expect([ok(0) + ok(2), ok(1) + ok(4), ok(3)]).toEqual([1, 1, 1]);
        expect((await store.listClients()).map((c) => c.client_id)).toEqual(['c1', 'c2', 'c3']);
        expect((await store.listAudit({})).filter((a) => a.kind === 'test')).toHaveLength(3);
      });

      it('a closed store refuses writes with store_unavailable', async () => {
        await store.close();
        await expect(store.setMeta('k', 'v')).rejects.toBeInstanceOf(StoreUnavailableError);
      });
    },
  );
}

async function tamperMigration(
  name: 'sqlite' | 'postgres',
  opened: OpenedStore,
  store: HubStore,
): Promise<void> {
  await store.close();
  if (name === 'sqlite') {
    const db = new Database(join(opened.where.dataDir!, 'hub.sqlite'));
    db.prepare("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 1").run();
    db.close();
    return;
  }
  const c = new pg.Client({ connectionString: opened.where.url });
  await c.connect();
  await c.query("UPDATE schema_migrations SET checksum = 'tampered' WHERE version = 1");
  await c.end();
}

/**
 * Runs statements straight on the store's database (its store closed), in either dialect: the same
 * statements for both, or each dialect's own.
 */
async function rawSql(
  name: 'sqlite' | 'postgres',
  opened: OpenedStore,
  given: string[] | Record<'sqlite' | 'postgres', string[]>,
): Promise<void> {
  const statements = Array.isArray(given) ? given : given[name];
  if (name === 'sqlite') {
    const db = new Database(join(opened.where.dataDir!, 'hub.sqlite'));
    for (const sql of statements) db.exec(sql);
    db.close();
    return;
  }
  const c = new pg.Client({ connectionString: opened.where.url });
  await c.connect();
  for (const sql of statements) await c.query(sql);
  await c.end();
}

/** How many indexes of the permits table cover invocation_id (the store's database, its store closed or not). */
async function permitIndexesOnInvocation(name: 'sqlite' | 'postgres', opened: OpenedStore): Promise<number> {
  if (name === 'sqlite') {
    const db = new Database(join(opened.where.dataDir!, 'hub.sqlite'), { readonly: true });
    try {
      const indexes = db.prepare("SELECT name FROM pragma_index_list('permits')").all() as Array<{
        name: string;
      }>;
      return indexes.filter((i) =>
        (db.prepare('SELECT name FROM pragma_index_info(?)').all(i.name) as Array<{ name: string }>).some(
          (c) => c.name === 'invocation_id',
        ),
      ).length;
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: opened.where.url });
  await c.connect();
  try {
    const r = await c.query(
      "SELECT COUNT(*)::int AS n FROM pg_indexes WHERE tablename = 'permits' AND indexdef LIKE '%(invocation_id)%'",
    );
    return Number(r.rows[0].n);
  } finally {
    await c.end();
  }
}

/** Which of the two task indexes cover only rows with a task (task_id IS NOT NULL), by name. */
async function taskIndexesOnlyForTasks(name: 'sqlite' | 'postgres', opened: OpenedStore): Promise<string[]> {
  const names = ['audit_task', 'invocations_task_created'];
  if (name === 'sqlite') {
    const db = new Database(join(opened.where.dataDir!, 'hub.sqlite'), { readonly: true });
    try {
      const rows = db
        .prepare("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND name IN (?, ?) ORDER BY name")
        .all(...names) as Array<{ name: string; sql: string }>;
      return rows.filter((r) => /WHERE task_id IS NOT NULL$/.test(r.sql)).map((r) => r.name);
    } finally {
      db.close();
    }
  }
  const c = new pg.Client({ connectionString: opened.where.url });
  await c.connect();
  try {
    const r = await c.query<{ indexname: string; indexdef: string }>(
      'SELECT indexname, indexdef FROM pg_indexes WHERE indexname = ANY($1) ORDER BY indexname',
      [names],
    );
    return r.rows.filter((x) => /WHERE \(task_id IS NOT NULL\)$/.test(x.indexdef)).map((x) => x.indexname);
  } finally {
    await c.end();
  }
}

/** A small seeded PRNG (mulberry32), so a failing walk can be replayed. */
function seeded(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let x = Math.imul(a ^ (a >>> 15), 1 | a);
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x;
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}
