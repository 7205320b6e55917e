/** The default HubStore: one SQLite file in the data directory (see open.ts for durability). */
import type Database from 'better-sqlite3';
import { randomBytes, randomUUID } from 'node:crypto';
import type { ApprovalState, InvocationState } from '../../../src-shared/states.js';
import type {
  AuditInput,
  AuthorizationRecord,
  ClientRecord,
  HubStore,
  MigrationStatus,
  OperationRecord,
  SessionEnrollmentRecord,
  StoredEventText,
  TaskRecord,
  TaskUsage,
} from '../types.js';
import { createEventPruner } from './event-pruner.js';
import { createInvocationChanger } from './invocation-change.js';
import { createTaskUsageReader } from './task-usage.js';
import { openDatabase, SQLITE_DURABILITY } from './open.js';
import {
  toApproval,
  toAudit,
  toAuthorization,
  toEvent,
  toInvocation,
  toPermit,
  toRun,
  toSystem,
  toTask,
} from './rows.js';

type Row = Record<string, unknown>;

export interface SqliteStoreOptions {
  dataDir: string;
}

export function createSqliteStore(options: SqliteStoreOptions): HubStore {
  const db: Database.Database = openDatabase(options.dataDir);
  const meta = (key: string): string | null =>
    (db.prepare('SELECT value FROM meta WHERE key = ?').get(key) as { value: string } | undefined)?.value ??
    null;
  const setMeta = (key: string, value: string) =>
    db
      .prepare(
        'INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value',
      )
      .run(key, value);
  db.transaction(() => {
    if (!meta('hub_id')) setMeta('hub_id', `hub_${randomUUID()}`);
    if (!meta('token_salt')) setMeta('token_salt', randomBytes(32).toString('hex'));
  }).immediate();
  const hubId = meta('hub_id') as string;
  const salt = meta('token_salt') as string;

  const auditStmt = db.prepare(
    `INSERT INTO audit (at, actor, kind, invocation_id, task_id, from_state, to_state, detail_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const audit = (
    a: AuditInput & {
      invocation_id?: string | null;
      task_id?: string | null;
      from_state?: string | null;
      to_state?: string | null;
    },
    at: string,
  ) =>
    auditStmt.run(
      at,
      a.actor,
      a.kind,
      a.invocation_id ?? null,
      a.task_id ?? null,
      a.from_state ?? null,
      a.to_state ?? null,
      JSON.stringify(a.detail),
    );
  const eventStmt = db.prepare('INSERT INTO events (client_id, type, payload_json, at) VALUES (?, ?, ?, ?)');
  const appendEvent = (
    clientId: string,
    type: string,
    payload: Record<string, unknown>,
    at: string,
  ): number => Number(eventStmt.run(clientId, type, JSON.stringify(payload), at).lastInsertRowid);
  const eventPageStmt = db.prepare(
    'SELECT seq, type, payload_json FROM events WHERE client_id = ? AND seq > ? ORDER BY seq LIMIT ?',
  );
  const latestEventStmt = db.prepare('SELECT MAX(seq) AS latest FROM events');
  const eventClientsStmt = db.prepare('SELECT DISTINCT client_id FROM events WHERE seq > ?');
  const horizonStmt = db.prepare('SELECT pruned_through FROM event_horizons WHERE client_id = ?');
  const pruneEvents = createEventPruner(db);
  const now = () => new Date().toISOString();
  const changeInvocation = createInvocationChanger(db);
  const readUsage = createTaskUsageReader(db);
  const operation = (r: Row): OperationRecord => ({
    system_id: String(r.system_id),
    tool: String(r.tool),
    declaration_revision: String(r.declaration_revision),
    operation: JSON.parse(String(r.operation_json)),
  });
  const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

  const store: HubStore = {
    kind: 'sqlite',
    durability: SQLITE_DURABILITY,
    hubId: () => hubId,
    tokenSalt: () => salt,
    async getMeta(key) {
      return meta(key);
    },
    async setMeta(key, value) {
      setMeta(key, value);
    },
    async migrations() {
      return db.prepare('SELECT * FROM schema_migrations ORDER BY version').all() as MigrationStatus[];
    },

    async createClient(c, a) {
      db.transaction(() => {
        db.prepare('INSERT INTO clients (client_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)').run(
          c.client_id,
          c.name,
          c.token_hash,
          c.created_at,
        );
        audit(a, c.created_at);
      }).immediate();
    },
    async upsertClient(c, a) {
      db.transaction(() => {
        db.prepare(
          `INSERT INTO clients (client_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)
           ON CONFLICT(client_id) DO UPDATE SET name = excluded.name, token_hash = excluded.token_hash`,
        ).run(c.client_id, c.name, c.token_hash, c.created_at);
        audit(a, c.created_at);
      }).immediate();
    },
    async getClient(id) {
      return (
        (db.prepare('SELECT * FROM clients WHERE client_id = ?').get(id) as ClientRecord | undefined) ?? null
      );
    },
    async listClients() {
      return db.prepare('SELECT * FROM clients ORDER BY created_at, client_id').all() as ClientRecord[];
    },

    async upsertSystem(s, at, a) {
      db.transaction(() => {
        db.prepare(
          `INSERT INTO systems (system_id, name, base_url, spec_path, signing_secret, created_at)
           VALUES (@system_id, @name, @base_url, @spec_path, @signing_secret, @at)
           ON CONFLICT(system_id) DO UPDATE SET name = excluded.name, base_url = excluded.base_url,
             spec_path = excluded.spec_path, signing_secret = excluded.signing_secret`,
        ).run({ ...s, at });
        audit(a, at);
      }).immediate();
      return toSystem(db.prepare('SELECT * FROM systems WHERE system_id = ?').get(s.system_id) as Row);
    },
    async getSystem(id) {
      const r = db.prepare('SELECT * FROM systems WHERE system_id = ?').get(id) as Row | undefined;
      return r ? toSystem(r) : null;
    },
    async listSystems() {
      return (db.prepare('SELECT * FROM systems ORDER BY system_id').all() as Row[]).map(toSystem);
    },
    async replaceOperations(systemId, ops, specRevision, diagnostics, at, a) {
      db.transaction(() => {
        const sys = db.prepare('SELECT name FROM systems WHERE system_id = ?').get(systemId) as
          { name: string } | undefined;
        db.prepare('UPDATE operations SET current = 0 WHERE system_id = ?').run(systemId);
        db.prepare('DELETE FROM operations_fts WHERE system_id = ?').run(systemId);
        const upsert = db.prepare(
          `INSERT INTO operations (system_id, tool, declaration_revision, operation_json, current) VALUES (?, ?, ?, ?, 1)
           ON CONFLICT(system_id, tool, declaration_revision) DO UPDATE SET current = 1, operation_json = excluded.operation_json`,
        );
        const fts = db.prepare(
          'INSERT INTO operations_fts (system_id, tool_name, tool, description, system_name) VALUES (?, ?, ?, ?, ?)',
        );
        for (const op of ops) {
          upsert.run(systemId, op.tool, op.declaration_revision, JSON.stringify(op.operation));
          fts.run(
            systemId,
            op.tool,
            op.tool.replace(/[_-]+/g, ' ') + ' ' + op.tool,
            op.operation.description ?? '',
            sys?.name ?? '',
          );
        }
        db.prepare(
          'UPDATE systems SET spec_revision = ?, diagnostics_json = ?, refreshed_at = ? WHERE system_id = ?',
        ).run(specRevision, JSON.stringify(diagnostics), at, systemId);
        audit(a, at);
      }).immediate();
    },
    async recordDiagnostics(systemId, diagnostics, a) {
      const at = now();
      db.transaction(() => {
        db.prepare('UPDATE systems SET diagnostics_json = ? WHERE system_id = ?').run(
          JSON.stringify(diagnostics),
          systemId,
        );
        audit(a, at);
      }).immediate();
    },
    async currentOperation(systemId, tool) {
      const r = db
        .prepare('SELECT * FROM operations WHERE system_id = ? AND tool = ? AND current = 1')
        .get(systemId, tool) as Row | undefined;
      return r ? operation(r) : null;
    },
    async currentOperations(systemIds) {
      if (systemIds.length === 0) return [];
      return (
        db
          .prepare(
            `SELECT * FROM operations WHERE current = 1 AND system_id IN (${placeholders(systemIds.length)}) ORDER BY system_id, tool`,
          )
          .all(...systemIds) as Row[]
      ).map(operation);
    },
    async searchOperations(ftsQuery, systemIds, limit) {
      if (systemIds.length === 0) return [];
      const hits = db
        .prepare(
          `SELECT f.system_id AS system_id, f.tool_name AS tool, bm25(operations_fts, 0.0, 0.0, 4.0, 1.0, 0.5) AS rank
           FROM operations_fts f WHERE operations_fts MATCH ? AND f.system_id IN (${placeholders(systemIds.length)})
           ORDER BY rank LIMIT ?`,
        )
        .all(ftsQuery, ...systemIds, limit) as Array<{ system_id: string; tool: string; rank: number }>;
      const out: Array<{ op: OperationRecord; score: number }> = [];
      const get = db.prepare('SELECT * FROM operations WHERE system_id = ? AND tool = ? AND current = 1');
      for (const h of hits) {
        const r = get.get(h.system_id, h.tool) as Row | undefined;
        if (r) out.push({ op: operation(r), score: Math.round(-h.rank * 1000) / 1000 });
      }
      return out;
    },

    async createAuthorization(a, au) {
      db.transaction(() => {
        db.prepare(
          `INSERT INTO authorizations (authorization_ref, system_id, account, on_behalf_of, state, revision, created_at, updated_at)
           VALUES (@authorization_ref, @system_id, @account, @on_behalf_of, @state, @revision, @created_at, @updated_at)`,
        ).run(a);
        audit(au, a.created_at);
      }).immediate();
    },
    async getAuthorization(ref) {
      const r = db.prepare('SELECT * FROM authorizations WHERE authorization_ref = ?').get(ref) as
        Row | undefined;
      return r ? toAuthorization(r) : null;
    },
    async listAuthorizations(clientId) {
      const rows = clientId
        ? db
            .prepare(
              `SELECT a.* FROM authorizations a JOIN grants g ON g.authorization_ref = a.authorization_ref
               WHERE g.client_id = ? ORDER BY a.authorization_ref`,
            )
            .all(clientId)
        : db.prepare('SELECT * FROM authorizations ORDER BY authorization_ref').all();
      return (rows as Row[]).map(toAuthorization);
    },
    async grant(ref, clientId, a) {
      db.transaction(() => {
        db.prepare('INSERT OR IGNORE INTO grants (authorization_ref, client_id) VALUES (?, ?)').run(
          ref,
          clientId,
        );
        audit(a, now());
      }).immediate();
    },
    async isGranted(ref, clientId) {
      return !!db
        .prepare('SELECT 1 FROM grants WHERE authorization_ref = ? AND client_id = ?')
        .get(ref, clientId);
    },
    async grantees(ref) {
      return (
        db.prepare('SELECT client_id FROM grants WHERE authorization_ref = ?').all(ref) as Array<{
          client_id: string;
        }>
      ).map((r) => r.client_id);
    },
    async updateAuthorization(ref, patch, at, a, render) {
      return db
        .transaction((): AuthorizationRecord | null => {
          const r = db.prepare('SELECT * FROM authorizations WHERE authorization_ref = ?').get(ref) as
            Row | undefined;
          if (!r) return null;
          const cur = toAuthorization(r);
          const next: AuthorizationRecord = {
            ...cur,
            state: patch.state,
            account: patch.account ?? cur.account,
            on_behalf_of: patch.on_behalf_of ?? cur.on_behalf_of,
            revision: cur.revision + 1,
            updated_at: at,
          };
          db.prepare(
            `UPDATE authorizations SET state = @state, account = @account, on_behalf_of = @on_behalf_of,
               revision = @revision, updated_at = @updated_at WHERE authorization_ref = @authorization_ref`,
          ).run(next);
          audit({ ...a, from_state: cur.state, to_state: next.state }, at);
          const payload = render(next);
          for (const g of db
            .prepare('SELECT client_id FROM grants WHERE authorization_ref = ?')
            .all(ref) as Array<{ client_id: string }>) {
            appendEvent(g.client_id, 'authorization.changed', payload, at);
          }
          return next;
        })
        .immediate();
    },

    async createRun(r) {
      db.prepare(
        `INSERT INTO runs (run_id, client_id, agent_session_id, turn_id, authorization_ref, state, created_at, ended_at)
         VALUES (@run_id, @client_id, @agent_session_id, @turn_id, @authorization_ref, @state, @created_at, @ended_at)`,
      ).run(r);
    },
    async getRun(id) {
      const r = db.prepare('SELECT * FROM runs WHERE run_id = ?').get(id) as Row | undefined;
      return r ? toRun(r) : null;
    },
    async endRun(id, at) {
      db.prepare("UPDATE runs SET state = 'ended', ended_at = ? WHERE run_id = ? AND state = 'open'").run(
        at,
        id,
      );
      const r = db.prepare('SELECT * FROM runs WHERE run_id = ?').get(id) as Row | undefined;
      return r ? toRun(r) : null;
    },

    async getInvocation(id) {
      const r = db.prepare('SELECT * FROM invocations WHERE invocation_id = ?').get(id) as Row | undefined;
      return r ? toInvocation(r) : null;
    },
    async applyInvocationChange(change) {
      return changeInvocation(change);
    },
    async listInvocationsInState(state: InvocationState) {
      return (
        db.prepare('SELECT * FROM invocations WHERE state = ? ORDER BY created_at').all(state) as Row[]
      ).map(toInvocation);
    },

    async getApproval(id) {
      const r = db.prepare('SELECT * FROM approvals WHERE approval_id = ?').get(id) as Row | undefined;
      return r ? toApproval(r) : null;
    },
    async listApprovals(state?: ApprovalState) {
      const rows = state
        ? db.prepare('SELECT * FROM approvals WHERE state = ? ORDER BY created_at').all(state)
        : db.prepare('SELECT * FROM approvals ORDER BY created_at').all();
      return (rows as Row[]).map(toApproval);
    },

    async appendAudit(entry, at) {
      audit(entry, at);
    },
    async listAudit(filter) {
      const where: string[] = [];
      const args: unknown[] = [];
      if (filter.invocation_id) {
        where.push('invocation_id = ?');
        args.push(filter.invocation_id);
      }
      if (filter.task_id) {
        where.push('task_id = ?');
        args.push(filter.task_id);
      }
      if (filter.kind) {
        where.push('kind = ?');
        args.push(filter.kind);
      }
      if (filter.after_seq !== undefined) {
        where.push('seq > ?');
        args.push(filter.after_seq);
      }
      const sql = `SELECT * FROM audit ${where.length ? 'WHERE ' + where.join(' AND ') : ''} ORDER BY seq LIMIT ?`;
      return (db.prepare(sql).all(...args, filter.limit ?? 1000) as Row[]).map(toAudit);
    },

    async listEvents(clientId, afterSeq, limit) {
      return (
        db
          .prepare('SELECT * FROM events WHERE client_id = ? AND seq > ? ORDER BY seq LIMIT ?')
          .all(clientId, afterSeq, limit) as Row[]
      ).map(toEvent);
    },
    async readEventPage(clientId, afterSeq, { maxEvents, maxBytes }) {
      const page: StoredEventText[] = [];
      let bytes = 0;
      // iterate (not all): rows are read one at a time and the read stops at the byte bound
      for (const r of eventPageStmt.iterate(clientId, afterSeq, maxEvents) as IterableIterator<Row>) {
        const payload_json = String(r.payload_json);
        page.push({ seq: Number(r.seq), type: String(r.type), payload_json });
        bytes += payload_json.length;
        if (bytes >= maxBytes) break;
      }
      return page;
    },
    async eventClientsAfter(afterSeq) {
      const latest = (latestEventStmt.get() as { latest: number | null }).latest ?? 0;
      if (latest <= afterSeq) return { latest, clients: [] };
      const rows = eventClientsStmt.all(afterSeq) as Array<{ client_id: string }>;
      return { latest, clients: rows.map((r) => r.client_id) };
    },
    async appendEvent(clientId, type, payload, at) {
      return appendEvent(clientId, type, payload, at);
    },
    async pruneEvents({ before, keepPerClient }) {
      return pruneEvents(before, keepPerClient);
    },
    async eventHorizon(clientId) {
      const row = horizonStmt.get(clientId) as { pruned_through: number } | undefined;
      return row?.pruned_through ?? 0;
    },

    async createTask(t, a) {
      db.transaction(() => {
        db.prepare(
          `INSERT INTO tasks (task_id, client_id, title, state, boundary_json, writes_used, permits_granted, created_at, updated_at, paused_at, cancelled_at)
           VALUES (?, ?, ?, ?, ?, 0, 0, ?, ?, NULL, NULL)`,
        ).run(
          t.task_id,
          t.client_id,
          t.title,
          t.state,
          JSON.stringify(t.boundary),
          t.created_at,
          t.updated_at,
        );
        audit({ ...a, task_id: t.task_id, to_state: t.state }, t.created_at);
      }).immediate();
    },
    async getTask(id) {
      const r = db.prepare('SELECT * FROM tasks WHERE task_id = ?').get(id) as Row | undefined;
      return r ? toTask(r) : null;
    },
    async listTasks(clientId) {
      const rows = clientId
        ? db.prepare('SELECT * FROM tasks WHERE client_id = ? ORDER BY created_at, task_id').all(clientId)
        : db.prepare('SELECT * FROM tasks ORDER BY created_at, task_id').all();
      return (rows as Row[]).map(toTask);
    },
    async changeTaskState(change) {
      return db
        .transaction((): TaskRecord | null => {
          const res = db
            .prepare(
              `UPDATE tasks SET state = @to, updated_at = @at,
                 paused_at = CASE WHEN @to = 'paused' THEN @at WHEN @to = 'active' THEN NULL ELSE paused_at END,
                 cancelled_at = CASE WHEN @to = 'cancelled' THEN @at ELSE cancelled_at END
               WHERE task_id = @task_id AND state = @from`,
            )
            .run({ to: change.to, at: change.at, task_id: change.task_id, from: change.from });
          if (res.changes !== 1) return null;
          audit(
            { ...change.audit, task_id: change.task_id, from_state: change.from, to_state: change.to },
            change.at,
          );
          return toTask(db.prepare('SELECT * FROM tasks WHERE task_id = ?').get(change.task_id) as Row);
        })
        .immediate();
    },
    async taskUsage(taskId, nowMs, windowMs): Promise<TaskUsage> {
      return db.transaction(() => readUsage(taskId, nowMs, windowMs))();
    },
    async listPermits(taskId) {
      return (
        db
          .prepare('SELECT * FROM permits WHERE task_id = ? ORDER BY granted_at_ms, permit_id')
          .all(taskId) as Row[]
      ).map(toPermit);
    },

    async getEnrollment(clientId, agentSessionId) {
      return (
        (db
          .prepare('SELECT * FROM session_enrollments WHERE client_id = ? AND agent_session_id = ?')
          .get(clientId, agentSessionId) as SessionEnrollmentRecord | undefined) ?? null
      );
    },

    async close() {
      if (db.open) db.close();
    },
  };
  return store;
}
