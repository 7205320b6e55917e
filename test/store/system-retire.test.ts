// Retiring a system in the store (retireSystem, InvocationChange.live_system) on both dialects:
// the decision and a new call's check are one transaction each, ordered by the system's key; an
// admin change of a retired system's declarations, authorizations or grants fails inside its own
// transaction (requireLiveSystem) and writes nothing.
// On PostgreSQL the lock protocol itself is checked with a second connection holding what the
// other side's transaction holds: a retire waits for a new call's shared hold of the system's key
// and then counts it; a new call waits for a retire's exclusive hold and then finds it retired.
import pg from 'pg';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isSystemRetiredError } from '../../src-hub/store/errors.js';
import { systemLockKey } from '../../src-hub/store/sql/ops/systems.js';
import {
  AT,
  audit,
  dialects,
  dispatchChange,
  invocation,
  permitFor,
  seedCatalog,
  task,
  type OpenedStore,
} from './fixtures.js';

const retireAudit = { actor: 'test', kind: 'system.retired', detail: { system_id: 'sys-a' } };

for (const dialect of dialects()) {
  describe.skipIf(dialect.unavailable !== null)(
    `retiring a system: ${dialect.name}${dialect.unavailable ? ` (skipped: ${dialect.unavailable})` : ''}`,
    () => {
      let opened: OpenedStore;
      beforeEach(async () => {
        opened = await dialect.open();
        await seedCatalog(opened.store);
      });
      afterEach(async () => {
        await opened.cleanup();
      });

      it('not found, refused while a call is unresolved, then retired once (idempotent); registering again revives', async () => {
        const { store } = opened;
        expect(await store.retireSystem('nope', AT, retireAudit)).toEqual({ kind: 'not_found' });
        const rec = invocation();
        expect((await store.applyInvocationChange(dispatchChange(rec))).kind).toBe('applied');
        expect(await store.retireSystem('sys-a', AT, retireAudit)).toEqual({ kind: 'unresolved', count: 1 });
        expect((await store.getSystem('sys-a'))?.retired_at).toBeNull();
        await store.applyInvocationChange({
          invocation_id: rec.invocation_id,
          from: 'dispatching',
          to: 'succeeded',
          at: AT,
          audit,
        });
        const first = await store.retireSystem('sys-a', '2026-11-30T11:00:00.000Z', retireAudit);
        expect(first.kind === 'retired' && first.system.retired_at).toBe('2026-11-30T11:00:00.000Z');
        expect(first.kind === 'retired' && first.already).toBe(false);
        const second = await store.retireSystem('sys-a', '2026-11-30T12:00:00.000Z', retireAudit);
        expect(second.kind === 'retired' && second.already).toBe(true);
        expect(second.kind === 'retired' && second.system.retired_at).toBe('2026-11-30T11:00:00.000Z');
        expect((await store.listAudit({ kind: 'system.retired' })).length).toBe(1);

        const sys = (await store.getSystem('sys-a'))!;
        await store.upsertSystem({ ...sys }, AT, audit);
        expect((await store.getSystem('sys-a'))?.retired_at).toBeNull();
      });

      it('a new call on a retired system fails with system_retired and writes nothing, also among other changes of its batch', async () => {
        const { store } = opened;
        expect((await store.retireSystem('sys-a', AT, retireAudit)).kind).toBe('retired');
        const gated = invocation();
        const free = invocation({ system_id: 'sys-b' });
        const [a, b] = await Promise.allSettled([
          store.applyInvocationChange(dispatchChange(gated, { live_system: 'sys-a' })),
          store.applyInvocationChange(dispatchChange(free)),
        ]);
        expect(a.status).toBe('rejected');
        expect(isSystemRetiredError(a.status === 'rejected' ? a.reason : null)).toBe(true);
        expect(b.status === 'fulfilled' && b.value.kind).toBe('applied');
        expect(await store.getInvocation(gated.invocation_id)).toBeNull();
        expect(await store.listAudit({ invocation_id: gated.invocation_id })).toEqual([]);
      });

      it('new calls of one task with their permits, sent together (PostgreSQL applies them as one set-based run): those to a retired system fail with system_retired, the others apply', async () => {
        const { store } = opened;
        const sysA = (await store.getSystem('sys-a'))!;
        await store.upsertSystem({ ...sysA, system_id: 'sys-b', name: 'System B' }, AT, audit);
        const t = task({ budget: 100 });
        await store.createTask(t, audit);
        expect((await store.retireSystem('sys-a', AT, retireAudit)).kind).toBe('retired');
        const calls = Array.from({ length: 12 }, (_, i) => {
          const system = i % 3 === 0 ? 'sys-a' : 'sys-b';
          const rec = invocation({ system_id: system, task_id: t.task_id });
          return { rec, system };
        });
        const settled = await Promise.allSettled(
          calls.map(({ rec, system }) =>
            store.applyInvocationChange(
              dispatchChange(rec, { permit: permitFor(t.task_id), live_system: system }),
            ),
          ),
        );
        settled.forEach((r, i) => {
          const { rec, system } = calls[i]!;
          if (system === 'sys-a') {
            expect(r.status).toBe('rejected');
            expect(isSystemRetiredError(r.status === 'rejected' ? r.reason : null)).toBe(true);
          } else expect(r.status === 'fulfilled' && r.value.kind, rec.invocation_id).toBe('applied');
        });
        for (const { rec, system } of calls)
          expect((await store.getInvocation(rec.invocation_id)) === null).toBe(system === 'sys-a');
        // only the applied calls spent the task's budget
        expect((await store.getTask(t.task_id))?.writes_used).toBe(8);
      });

      it("a retired system's declarations, authorizations and grants are frozen: every change of them but a revoke fails with system_retired inside its transaction and writes nothing; reading them stays allowed; a revoke applies", async () => {
        const { store } = opened;
        await store.createClient(
          { client_id: 'other', name: 'other', token_hash: 'h2', created_at: AT },
          audit,
        );
        expect((await store.retireSystem('sys-a', AT, retireAudit)).kind).toBe('retired');
        const auditBefore = (await store.listAudit({})).length;
        const sysBefore = await store.getSystem('sys-a');
        const opsBefore = await store.currentOperations(['sys-a']);
        const authBefore = await store.getAuthorization('auth-a');
        const op = opsBefore[0]!;
        const changes: Array<[string, () => Promise<unknown>]> = [
          [
            'replaceOperations',
            () =>
              store.replaceOperations(
                'sys-a',
                [{ ...op, declaration_revision: 'rev-2' }],
                'spec-2',
                [],
                AT,
                audit,
              ),
          ],
          [
            'replaceMcpCatalog',
            () =>
              store.replaceMcpCatalog({
                system_id: 'sys-a',
                tools: [],
                overlays: {},
                operations: [],
                spec_revision: 'spec-3',
                diagnostics: [],
                expected_revision: undefined,
                at: AT,
                audit,
              }),
          ],
          [
            'recordDiagnostics',
            () => store.recordDiagnostics('sys-a', [{ code: 'x', operation: null, message: 'm' }], audit),
          ],
          [
            'createAuthorization',
            () =>
              store.createAuthorization(
                { ...authBefore!, authorization_ref: 'auth-a2', created_at: AT, updated_at: AT },
                audit,
              ),
          ],
          ['grant', () => store.grant('auth-a', 'other', audit)],
          [
            'updateAuthorization (rebind)',
            () =>
              store.updateAuthorization({
                next: { ...authBefore!, state: 'rebound', account: 'moved', revision: 2 },
                expected_revision: 1,
                audit,
                event: { type: 'authorization.changed' },
              }),
          ],
        ];
        for (const [name, change] of changes) {
          const err = await change().then(
            () => null,
            (e: unknown) => e,
          );
          expect(isSystemRetiredError(err), name).toBe(true);
        }
        expect((await store.listAudit({})).length).toBe(auditBefore);
        expect(await store.getSystem('sys-a')).toEqual(sysBefore);
        expect(await store.currentOperations(['sys-a'])).toEqual(opsBefore);
        expect(await store.getAuthorization('auth-a')).toEqual(authBefore);
        expect(await store.getAuthorization('auth-a2')).toBeNull();
        expect(await store.grantees('auth-a')).toEqual(['desk']);
        expect(
          (await store.listEvents('desk', 0, 100)).filter((e) => e.type === 'authorization.changed'),
        ).toEqual([]);

        // a revoke only takes access away: it applies to a retired system's authorization
        expect(
          await store.updateAuthorization({
            next: { ...authBefore!, state: 'revoked', revision: 2 },
            expected_revision: 1,
            audit,
            event: { type: 'authorization.changed' },
          }),
        ).toBe(true);
        expect((await store.getAuthorization('auth-a'))?.state).toBe('revoked');
        expect((await store.listAudit({})).length).toBe(auditBefore + 1);

        // registering it again revives it: the same changes apply
        await store.upsertSystem({ ...sysBefore! }, AT, audit);
        await store.grant('auth-a', 'other', audit);
        expect(await store.grantees('auth-a')).toEqual(['desk', 'other']);
      });

      // PostgreSQL only: SQLite's one writer runs the two transactions one after the other
      if (dialect.name === 'postgres')
        it("PostgreSQL: a retire waits for a new call holding the system's key and counts it; a new call waits for a retire and is refused", async () => {
          const { store, where } = opened;
          const other = new pg.Client({ connectionString: where.url });
          await other.connect();
          try {
            // a settled call to copy rows from
            const seed = invocation();
            await store.applyInvocationChange(dispatchChange(seed));
            await store.applyInvocationChange({
              invocation_id: seed.invocation_id,
              from: 'dispatching',
              to: 'succeeded',
              at: AT,
              audit,
            });
            // a new call's transaction holds the system's key shared and has not committed yet
            await other.query('BEGIN');
            await other.query('SELECT pg_advisory_xact_lock_shared(hashtextextended($1, 0))', [
              systemLockKey('sys-a'),
            ]);
            let settled = false;
            const retiring = store.retireSystem('sys-a', AT, retireAudit).finally(() => (settled = true));
            await new Promise((r) => setTimeout(r, 300));
            expect(settled).toBe(false);
            await other.query(
              'CREATE TEMP TABLE raced AS SELECT * FROM invocations WHERE invocation_id = $1',
              [seed.invocation_id],
            );
            await other.query("UPDATE raced SET invocation_id = 'inv_raced_0001', state = 'dispatching'");
            await other.query('INSERT INTO invocations SELECT * FROM raced');
            await other.query('COMMIT');
            expect(await retiring).toEqual({ kind: 'unresolved', count: 1 });

            // settle it, then hold a retire's exclusive key: a new call waits and finds the system retired
            await other.query(
              "UPDATE invocations SET state = 'succeeded' WHERE invocation_id = 'inv_raced_0001'",
            );
            await other.query('BEGIN');
            await other.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
              systemLockKey('sys-a'),
            ]);
            await other.query("UPDATE systems SET retired_at = $1 WHERE system_id = 'sys-a'", [AT]);
            const rec = invocation();
            let done = false;
            const creating = store
              .applyInvocationChange(dispatchChange(rec, { live_system: 'sys-a' }))
              .finally(() => (done = true));
            creating.catch(() => undefined);
            await new Promise((r) => setTimeout(r, 300));
            expect(done).toBe(false);
            await other.query('COMMIT');
            const err = await creating.then(
              () => null,
              (e: unknown) => e,
            );
            expect(isSystemRetiredError(err)).toBe(true);
            expect(await store.getInvocation(rec.invocation_id)).toBeNull();
          } finally {
            await other.end();
          }
        });

      if (dialect.name === 'postgres')
        it("PostgreSQL: an admin change of the system (a grant, an overlay's catalog) waits for a retire holding the system's key, then is refused and writes nothing", async () => {
          const { store, where } = opened;
          await store.createClient(
            { client_id: 'other', name: 'other', token_hash: 'h2', created_at: AT },
            audit,
          );
          const other = new pg.Client({ connectionString: where.url });
          await other.connect();
          try {
            await other.query('BEGIN');
            await other.query('SELECT pg_advisory_xact_lock(hashtextextended($1, 0))', [
              systemLockKey('sys-a'),
            ]);
            await other.query("UPDATE systems SET retired_at = $1 WHERE system_id = 'sys-a'", [AT]);
            const settled: string[] = [];
            const changes = [
              store.grant('auth-a', 'other', audit).finally(() => settled.push('grant')),
              store
                .replaceMcpCatalog({
                  system_id: 'sys-a',
                  tools: [],
                  overlays: {},
                  operations: [],
                  spec_revision: 'spec-9',
                  diagnostics: [],
                  expected_revision: undefined,
                  at: AT,
                  audit,
                })
                .finally(() => settled.push('catalog')),
            ];
            for (const c of changes) c.catch(() => undefined);
            await new Promise((r) => setTimeout(r, 300));
            expect(settled).toEqual([]);
            await other.query('COMMIT');
            for (const c of changes) {
              const err = await c.then(
                () => null,
                (e: unknown) => e,
              );
              expect(isSystemRetiredError(err)).toBe(true);
            }
            expect(await store.grantees('auth-a')).toEqual(['desk']);
            expect((await store.getSystem('sys-a'))?.spec_revision).toBe('spec-1');
          } finally {
            await other.end();
          }
        });
    },
  );
}
