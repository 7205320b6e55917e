// The SQLite scope store: a session's scope is fixed; a scope that cannot be read blocks recovery
// (binding unavailable) instead of being guessed.
import { afterEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createHubClient } from '../../src-main/hub-client/index.js';
import { createMemoryInvocationStore } from '../../src-main/journal/index.js';
import type { SessionScope } from '../../src-main/runtime/invocation-ports.js';
import { createInvocationRuntime } from '../../src-main/runtime/invocations/index.js';
import { ScopeStoreError, createSqliteScopeStore } from '../../src-main/runtime/scope/index.js';
import { entry, record, tempDir } from './helpers/journal-fixtures.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  while (cleanups.length) cleanups.pop()!();
});

const scope = (over: Partial<SessionScope> = {}): SessionScope => ({
  sessionId: 'sess-1',
  hubId: 'hub-1',
  clientId: 'client-1',
  workspaceId: 'ws-1',
  connectionKey: 'http://127.0.0.1:1#client-1',
  members: [
    { authorization_ref: 'auth-shop-a', authorization_revision: 1, system_id: 'shop-a', account: 'a' },
  ],
  fingerprint: 'f'.repeat(64),
  revision: 1,
  taskId: null,
  ...over,
});

async function code(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (err) {
    return err instanceof ScopeStoreError ? err.code : 'uncoded';
  }
  return 'no error';
}

describe('sqlite scope store', () => {
  it('persists a scope; refuses a different scope under the same revision, an older revision and extra fields', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const path = join(t.dir, 'scopes.sqlite');
    const store = createSqliteScopeStore({ path });
    expect(await store.load('sess-1')).toBeNull();
    await store.save(scope());
    await store.save(scope()); // the same scope again is fine
    expect(await code(store.save(scope({ fingerprint: '0'.repeat(64) })))).toBe('scope_conflict');
    await store.save(scope({ revision: 2, fingerprint: '1'.repeat(64) }));
    expect(await code(store.save(scope()))).toBe('scope_conflict');
    expect(await code(store.save({ ...scope({ revision: 3 }), token: 'x' } as never))).toBe('scope_invalid');
    store.close();
    expect(await createSqliteScopeStore({ path }).load('sess-1')).toEqual(
      scope({ revision: 2, fingerprint: '1'.repeat(64) }),
    );
  });

  it('an unreadable scope blocks the session (binding unavailable), with zero Hub requests', async () => {
    const t = tempDir();
    cleanups.push(t.cleanup);
    const path = join(t.dir, 'scopes.sqlite');
    const scopes = createSqliteScopeStore({ path });
    await scopes.save(scope());
    const db = new Database(path);
    db.prepare("UPDATE session_scopes SET body = '{not json' WHERE session_id = 'sess-1'").run();
    db.close();
    expect(await code(scopes.load('sess-1'))).toBe('scope_corrupt');
    const journal = createMemoryInvocationStore();
    await journal.save('sess-1', record('sess-1', 1, [entry()]), null);
    let hubCalls = 0;
    const hub = createHubClient({
      baseUrl: 'http://127.0.0.1:9',
      token: 'unused',
      fetch: async () => {
        hubCalls += 1;
        throw new Error('no Hub request expected');
      },
    });
    const runtime = createInvocationRuntime({ hub, invocationStore: journal, scopeStore: scopes });
    expect(await runtime.getSessionInvocationStatus('sess-1')).toMatchObject({
      state: 'blocked',
      reason: 'invocation_binding_unavailable',
      scope_state: 'blocked',
    });
    const inspected = await runtime.inspectSessionInvocation(
      { sessionId: 'sess-1', scope: scope(), turnId: null },
      'inv_anything_1234',
    );
    expect(inspected).toMatchObject({
      state: 'blocked',
      feedback: { code: 'invocation_binding_unavailable' },
    });
    expect(hubCalls).toBe(0);
  });
});
