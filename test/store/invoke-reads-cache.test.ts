// The invoke's configuration rows kept in memory (src-hub/store/sql/invoke-cache.ts) against the
// configuration generation (sql/ops/config-generation.ts): every write of a system, its
// declarations, an authorization or a grant is seen by the next invoke's reads — written through
// the store that caches, or through a second store on the same SQLite file, as the operator CLI
// opens one (its own connection and writer thread: to SQLite another writer, as another process).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openPostgresStore } from '../../src-hub/store/postgres/store.js';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import { createInvokeReadsCache } from '../../src-hub/store/sql/invoke-cache.js';
import type { HubStore, InvokeReadsQuery } from '../../src-hub/store/types.js';
import { createTestDatabase, describeOnPostgres } from '../hub/store-mode.js';
import { AT, audit, operation, seedInvoke } from './fixtures.js';

const SYSTEM = {
  system_id: 'sys-a',
  name: 'System A',
  base_url: 'http://127.0.0.1:9',
  spec_path: '/s',
  signing_secret: 's',
  spec_signing: 'signed' as const,
  signed_path: 'operation' as const,
  allow_insecure_http: false,
};

const declared = (rev: string) => {
  const op = operation('update_thing', { declaration_revision: rev });
  return { system_id: 'sys-a', tool: op.tool, declaration_revision: rev, operation: op };
};

/** A write of the configuration, and what the next invoke's reads must show of it. */
const WRITES: Array<{
  name: string;
  write: (s: HubStore) => Promise<unknown>;
  seen: (r: Awaited<ReturnType<HubStore['invokeReads']>>) => void;
}> = [
  {
    name: 'upsertSystem (a new base URL)',
    write: (s) => s.upsertSystem({ ...SYSTEM, base_url: 'http://127.0.0.1:10' }, AT, audit),
    seen: (r) => expect(r.system?.base_url).toBe('http://127.0.0.1:10'),
  },
  {
    name: 'resealSecrets (a re-sealed signing secret)',
    write: (s) => s.resealSecrets([{ system_id: 'sys-a', signing_secret: 's2' }], {}, audit),
    seen: (r) => expect(r.system?.signing_secret).toBe('s2'),
  },
  {
    name: 'recordDiagnostics',
    write: (s) => s.recordDiagnostics('sys-a', [{ code: 'x', operation: null, message: 'm' }], audit),
    seen: (r) => expect(r.system?.diagnostics).toHaveLength(1),
  },
  {
    name: 'retireSystem',
    write: (s) => s.retireSystem('sys-a', AT, audit),
    seen: (r) => expect(r.system?.retired_at).toBe(AT),
  },
  {
    name: 'replaceOperations (a new declaration)',
    write: (s) => s.replaceOperations('sys-a', [declared('rev-2')], 'spec-2', [], AT, audit),
    seen: (r) => expect(r.operation?.declaration_revision).toBe('rev-2'),
  },
  {
    name: 'replaceOperations (the tool withdrawn)',
    write: (s) => s.replaceOperations('sys-a', [], 'spec-2', [], AT, audit),
    seen: (r) => expect(r).toMatchObject({ operation: null, system: null }),
  },
  {
    name: 'replaceMcpCatalog',
    write: (s) =>
      s.replaceMcpCatalog({
        system_id: 'sys-a',
        tools: [],
        overlays: {},
        operations: [declared('rev-3')],
        spec_revision: 'spec-3',
        diagnostics: [],
        expected_revision: undefined,
        at: AT,
        audit,
      }),
    seen: (r) => expect(r.operation?.declaration_revision).toBe('rev-3'),
  },
  {
    name: 'updateAuthorization (a revoke)',
    write: async (s) => {
      const cur = (await s.getAuthorization('auth-a'))!;
      return s.updateAuthorization({
        next: { ...cur, state: 'revoked', revision: cur.revision + 1, updated_at: AT },
        expected_revision: cur.revision,
        audit,
        event: {},
      });
    },
    seen: (r) => expect(r.authorization).toMatchObject({ state: 'revoked', revision: 2 }),
  },
  {
    name: 'updateAuthorization (a rebind)',
    write: async (s) => {
      const cur = (await s.getAuthorization('auth-a'))!;
      return s.updateAuthorization({
        next: { ...cur, on_behalf_of: 'other@x', revision: cur.revision + 1, updated_at: AT },
        expected_revision: cur.revision,
        audit,
        event: {},
      });
    },
    seen: (r) => expect(r.authorization).toMatchObject({ on_behalf_of: 'other@x', revision: 2 }),
  },
];

/** Where the stores live: a second `open()` is another connection to the same data (the CLI's, a sibling instance). */
interface Place {
  open(): Promise<HubStore>;
  remove(): void;
}

const sqlitePlace = async (): Promise<Place> => {
  const dir = mkdtempSync(join(tmpdir(), 'hub-invoke-cache-'));
  return {
    open: () => Promise.resolve(createSqliteStore({ dataDir: dir })),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
};

const postgresPlace = async (): Promise<Place> => {
  const url = await createTestDatabase();
  return {
    open: () => openPostgresStore({ url, sequenceIntervalMs: 600_000 }),
    remove: () => undefined,
  };
};

function cacheSuite(place: () => Promise<Place>, other: string): void {
  let where: Place;
  let stores: HubStore[];
  let store: HubStore;
  let q: InvokeReadsQuery;
  const open = async () => {
    const s = await where.open();
    stores.push(s);
    return s;
  };
  beforeEach(async () => {
    where = await place();
    stores = [];
    store = await open();
    q = { ...(await seedInvoke(store)), task_id: null };
  });
  afterEach(async () => {
    for (const s of stores) await s.close();
    where.remove();
  });
  it('answers a repeated invoke from memory: the same frozen rows, equal to what the store reads', async () => {
    const first = await store.invokeReads(q);
    const again = await store.invokeReads({ ...q, invocation_id: 'inv_other' });
    expect(again.authorization).toBe(first.authorization);
    expect(again.system).toBe(first.system);
    expect(again.operation).toBe(first.operation);
    expect(Object.isFrozen(again.system)).toBe(true);
    expect(Object.isFrozen(again.authorization)).toBe(true);
    expect(again).toEqual({
      existing: null,
      run: await store.getRun('run_1'),
      authorization: await store.getAuthorization('auth-a'),
      granted: true,
      operation: await store.currentOperation('sys-a', 'update_thing'),
      task: null,
      system: await store.getSystem('sys-a'),
      config_generation: await store.configGeneration(),
    });
  });

  for (const w of WRITES) {
    it(`sees ${w.name} at the next invoke, written here`, async () => {
      await store.invokeReads(q);
      await w.write(store);
      w.seen(await store.invokeReads(q));
    });
    it(`sees ${w.name} at the next invoke, written by ${other}`, async () => {
      await store.invokeReads(q);
      const cli = await open();
      await w.write(cli);
      await cli.close();
      w.seen(await store.invokeReads(q));
    });
  }

  it('sees a grant to another client at that client’s next invoke (a refusal is never kept)', async () => {
    const other = { ...q, client_id: 'other' };
    expect(await store.invokeReads(other)).toMatchObject({ granted: false, operation: null });
    await store.createClient({ client_id: 'other', name: 'other', token_hash: 'h2', created_at: AT }, audit);
    await (await open()).grant('auth-a', 'other', audit);
    expect(await store.invokeReads(other)).toMatchObject({
      granted: true,
      operation: { tool: 'update_thing' },
    });
  });

  it('keeps nothing across clients, tools or authorizations', async () => {
    await store.invokeReads(q);
    expect(await store.invokeReads({ ...q, client_id: 'nobody' })).toMatchObject({ granted: false });
    expect(await store.invokeReads({ ...q, tool: 'no_such_tool' })).toMatchObject({ operation: null });
    expect(await store.invokeReads({ ...q, authorization_ref: 'nope' })).toMatchObject({
      authorization: null,
    });
  });
}

describe('the invoke reads cache (SQLite)', () => {
  cacheSuite(sqlitePlace, "another connection (the CLI's)");
});

describeOnPostgres('the invoke reads cache (PostgreSQL)', () => {
  cacheSuite(postgresPlace, 'another instance on the same database');
});

describe('the configuration generation', () => {
  it('is set anew by every configuration write, and only by those', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hub-config-gen-'));
    const store = createSqliteStore({ dataDir: dir });
    try {
      const generation = () => store.getMeta('config_generation');
      expect(await generation()).toBeNull();
      const q = { ...(await seedInvoke(store)), task_id: null };
      const seeded = await generation();
      expect(seeded).not.toBeNull();
      // an invocation's own writes and a run leave it alone
      await store.createRun({ ...(await store.getRun('run_1'))!, run_id: 'run_2' });
      await store.endRun('run_2', AT);
      expect(await generation()).toBe(seeded);
      expect((await store.invokeReads(q)).granted).toBe(true);
      await store.recordDiagnostics('sys-a', [], audit);
      expect(await generation()).not.toBe(seeded);
    } finally {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the cache empties itself when full', () => {
    const cache = createInvokeReadsCache(2);
    const entry = (ref: string) =>
      ({
        generation: null,
        authorization: { authorization_ref: ref },
        granted: true,
        operation: {},
        system: {},
      }) as never;
    cache.set('a', 'c', 't', entry('a'));
    cache.set('b', 'c', 't', entry('b'));
    expect(cache.get('a', 'c', 't')).toBeDefined();
    cache.set('c', 'c', 't', entry('c'));
    expect(cache.get('a', 'c', 't')).toBeUndefined();
    expect(cache.get('c', 'c', 't')).toBeDefined();
    // keys cannot run together: ("a", "bc", …) is not ("ab", "c", …)
    cache.set('a', 'bc', 't', entry('a'));
    expect(cache.get('ab', 'c', 't')).toBeUndefined();
    expect(cache.get('a', 'bc', 't')).toBeDefined();
  });
});
