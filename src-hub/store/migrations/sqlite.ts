/**
 * The SQLite dialect of the numbered schema migrations (postgres.ts has the same versions and
 * names). Never edit a released migration: its checksum is verified at every start (index.ts).
 */
import type { Migration } from './index.js';

export const SQLITE_MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'initial',
    sql: `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE clients (
  client_id TEXT PRIMARY KEY, name TEXT NOT NULL, token_hash TEXT NOT NULL, created_at TEXT NOT NULL
);
CREATE TABLE systems (
  system_id TEXT PRIMARY KEY, name TEXT NOT NULL, base_url TEXT NOT NULL, spec_path TEXT NOT NULL,
  signing_secret TEXT NOT NULL, spec_revision TEXT, diagnostics_json TEXT NOT NULL DEFAULT '[]',
  refreshed_at TEXT, created_at TEXT NOT NULL
);
CREATE TABLE operations (
  system_id TEXT NOT NULL, tool TEXT NOT NULL, declaration_revision TEXT NOT NULL,
  operation_json TEXT NOT NULL, current INTEGER NOT NULL DEFAULT 1,
  PRIMARY KEY (system_id, tool, declaration_revision)
);
CREATE INDEX operations_current ON operations (system_id, current);
CREATE VIRTUAL TABLE operations_fts USING fts5(system_id UNINDEXED, tool_name UNINDEXED, tool, description, system_name, tokenize = 'unicode61');
CREATE TABLE authorizations (
  authorization_ref TEXT PRIMARY KEY, system_id TEXT NOT NULL REFERENCES systems(system_id),
  account TEXT NOT NULL, on_behalf_of TEXT NOT NULL, state TEXT NOT NULL, revision INTEGER NOT NULL,
  created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE TABLE grants (
  authorization_ref TEXT NOT NULL REFERENCES authorizations(authorization_ref),
  client_id TEXT NOT NULL REFERENCES clients(client_id),
  PRIMARY KEY (authorization_ref, client_id)
);
CREATE TABLE runs (
  run_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, agent_session_id TEXT NOT NULL, turn_id TEXT NOT NULL,
  authorization_ref TEXT NOT NULL, state TEXT NOT NULL, created_at TEXT NOT NULL, ended_at TEXT
);
CREATE TABLE invocations (
  invocation_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, run_id TEXT NOT NULL,
  agent_session_id TEXT NOT NULL, turn_id TEXT NOT NULL, authorization_ref TEXT NOT NULL,
  authorization_revision INTEGER NOT NULL, system_id TEXT NOT NULL, tool TEXT NOT NULL,
  declaration_revision TEXT NOT NULL, operation_json TEXT NOT NULL, arguments_json TEXT NOT NULL,
  parameter_digest TEXT NOT NULL, host_call_id TEXT NOT NULL, task_id TEXT, effect TEXT NOT NULL,
  state TEXT NOT NULL, dispatch TEXT NOT NULL, reason_code TEXT, reason_message TEXT,
  retry_after_ms INTEGER, result_json TEXT, result_truncated INTEGER NOT NULL DEFAULT 0,
  business_status INTEGER, approval_id TEXT, reconciliation_json TEXT NOT NULL DEFAULT '[]',
  permit_id TEXT, created_at TEXT NOT NULL, updated_at TEXT NOT NULL
);
CREATE INDEX invocations_state ON invocations (state);
CREATE INDEX invocations_task ON invocations (task_id, state);
CREATE TABLE approvals (
  approval_id TEXT PRIMARY KEY, invocation_id TEXT NOT NULL UNIQUE, client_id TEXT NOT NULL,
  authorization_ref TEXT NOT NULL, tool TEXT NOT NULL, parameter_digest TEXT NOT NULL,
  arguments_preview_json TEXT, prompt TEXT, state TEXT NOT NULL, decision_id TEXT, decided_by TEXT,
  note TEXT, created_at TEXT NOT NULL, decided_at TEXT
);
CREATE INDEX approvals_state ON approvals (state);
CREATE TABLE tasks (
  task_id TEXT PRIMARY KEY, client_id TEXT NOT NULL, title TEXT NOT NULL, state TEXT NOT NULL,
  boundary_json TEXT NOT NULL, writes_used INTEGER NOT NULL DEFAULT 0,
  permits_granted INTEGER NOT NULL DEFAULT 0, created_at TEXT NOT NULL, updated_at TEXT NOT NULL,
  paused_at TEXT, cancelled_at TEXT
);
CREATE TABLE permits (
  permit_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, invocation_id TEXT NOT NULL UNIQUE,
  effect TEXT NOT NULL, granted_at_ms INTEGER NOT NULL, released_at_ms INTEGER
);
CREATE INDEX permits_open ON permits (task_id, released_at_ms);
CREATE INDEX permits_granted ON permits (task_id, granted_at_ms);
CREATE TABLE audit (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, at TEXT NOT NULL, actor TEXT NOT NULL, kind TEXT NOT NULL,
  invocation_id TEXT, task_id TEXT, from_state TEXT, to_state TEXT, detail_json TEXT NOT NULL
);
CREATE INDEX audit_invocation ON audit (invocation_id);
CREATE INDEX audit_task ON audit (task_id);
CREATE TRIGGER audit_no_update BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TRIGGER audit_no_delete BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'audit is append-only'); END;
CREATE TABLE events (
  seq INTEGER PRIMARY KEY AUTOINCREMENT, client_id TEXT NOT NULL, type TEXT NOT NULL,
  payload_json TEXT NOT NULL, at TEXT NOT NULL
);
CREATE INDEX events_client ON events (client_id, seq);
`,
  },
  {
    version: 2,
    name: 'operation_rate_and_session_enrollment',
    sql: `
CREATE TABLE operation_dispatches (
  invocation_id TEXT PRIMARY KEY, authorization_ref TEXT NOT NULL, tool TEXT NOT NULL,
  granted_at_ms INTEGER NOT NULL
);
CREATE INDEX operation_dispatches_window ON operation_dispatches (authorization_ref, tool, granted_at_ms);
CREATE TABLE session_enrollments (
  client_id TEXT NOT NULL, agent_session_id TEXT NOT NULL, task_id TEXT NOT NULL,
  invocation_id TEXT NOT NULL, enrolled_at TEXT NOT NULL,
  PRIMARY KEY (client_id, agent_session_id)
);
CREATE TRIGGER session_enrollments_no_update BEFORE UPDATE ON session_enrollments BEGIN SELECT RAISE(ABORT, 'an enrollment is permanent'); END;
CREATE TRIGGER session_enrollments_no_delete BEFORE DELETE ON session_enrollments BEGIN SELECT RAISE(ABORT, 'an enrollment is permanent'); END;
`,
  },
  {
    version: 3,
    name: 'event_retention',
    sql: `
CREATE TABLE event_horizons (
  client_id TEXT PRIMARY KEY, pruned_through INTEGER NOT NULL
);
CREATE INDEX events_at ON events (at);
`,
  },
  {
    version: 4,
    name: 'system_signing_modes',
    sql: `
ALTER TABLE systems ADD COLUMN spec_signing TEXT NOT NULL DEFAULT 'signed';
ALTER TABLE systems ADD COLUMN signed_path TEXT NOT NULL DEFAULT 'operation';
`,
  },
  {
    version: 5,
    name: 'instance_leases',
    sql: `
CREATE TABLE hub_instances (
  instance_id TEXT PRIMARY KEY, incarnation INTEGER NOT NULL, host TEXT NOT NULL, pid INTEGER NOT NULL,
  started_at TEXT NOT NULL, lease_expires_at_ms INTEGER NOT NULL, stopped_at TEXT
);
ALTER TABLE invocations ADD COLUMN owner_instance TEXT;
ALTER TABLE invocations ADD COLUMN owner_incarnation INTEGER;
`,
  },
  {
    version: 6,
    name: 'system_transport_and_sealed_secrets',
    sql: `
ALTER TABLE systems ADD COLUMN allow_insecure_http INTEGER NOT NULL DEFAULT 0;
`,
  },
  {
    version: 7,
    name: 'mcp_systems',
    sql: `
ALTER TABLE systems ADD COLUMN kind TEXT NOT NULL DEFAULT 'http';
ALTER TABLE systems ADD COLUMN mcp_json TEXT;
ALTER TABLE systems ADD COLUMN mcp_tools_json TEXT;
ALTER TABLE systems ADD COLUMN mcp_overlays_json TEXT NOT NULL DEFAULT '{}';
ALTER TABLE invocations ADD COLUMN remote_task_id TEXT;
`,
  },
  {
    version: 8,
    name: 'task_views_after_commit',
    sql: `
CREATE TABLE task_views_pending (task_id TEXT PRIMARY KEY, at TEXT NOT NULL);
CREATE INDEX invocations_task_created ON invocations (task_id, state, created_at, invocation_id);
DROP INDEX invocations_task;
CREATE INDEX invocations_task_attested ON invocations (task_id, state) WHERE reason_code = 'operator_attested';
ALTER TABLE tasks ADD COLUMN permits_open INTEGER NOT NULL DEFAULT 0;
UPDATE tasks SET permits_open = (
  SELECT COUNT(*) FROM permits WHERE permits.task_id = tasks.task_id AND permits.released_at_ms IS NULL);
`,
  },
  {
    version: 9,
    name: 'task_state_counts',
    sql: `
CREATE TABLE task_state_counts (
  task_id TEXT NOT NULL, state TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (task_id, state)) WITHOUT ROWID;
INSERT INTO task_state_counts (task_id, state, n)
  SELECT task_id, state, COUNT(*) FROM invocations WHERE task_id IS NOT NULL GROUP BY task_id, state;
`,
  },
  {
    version: 10,
    name: 'drop_unused_permits_open_index',
    sql: `
DROP INDEX permits_open;
`,
  },
  {
    // Permits are released and refunded by the permit id the invocation row holds, so nothing reads
    // them by invocation id: the UNIQUE index on it (keyed by the caller's random ids, one B-tree page
    // per permit in every commit) goes. Rebuilt WITHOUT ROWID (its one B-tree is the
    // permit_id key, which src-hub/ids.ts makes time-ordered).
    version: 11,
    name: 'permits_keyed_by_permit',
    sql: `
CREATE TABLE permits_v11 (
  permit_id TEXT PRIMARY KEY, task_id TEXT NOT NULL, invocation_id TEXT NOT NULL,
  effect TEXT NOT NULL, granted_at_ms INTEGER NOT NULL, released_at_ms INTEGER
) WITHOUT ROWID;
INSERT INTO permits_v11 (permit_id, task_id, invocation_id, effect, granted_at_ms, released_at_ms)
  SELECT permit_id, task_id, invocation_id, effect, granted_at_ms, released_at_ms FROM permits;
DROP TABLE permits;
ALTER TABLE permits_v11 RENAME TO permits;
CREATE INDEX permits_granted ON permits (task_id, granted_at_ms);
`,
  },
  {
    version: 12,
    name: 'system_retired_at',
    sql: `
ALTER TABLE systems ADD COLUMN retired_at TEXT;
`,
  },
  {
    // Only a task's calls and audit entries are ever read by task (task_id = ?, which implies
    // task_id IS NOT NULL, so the planner uses these indexes as before): a call without a task
    // no longer writes an entry of them, nor moves one on every change of its state.
    version: 13,
    name: 'task_indexes_only_for_tasks',
    sql: `
DROP INDEX invocations_task_created;
CREATE INDEX invocations_task_created ON invocations (task_id, state, created_at, invocation_id) WHERE task_id IS NOT NULL;
DROP INDEX audit_task;
CREATE INDEX audit_task ON audit (task_id) WHERE task_id IS NOT NULL;
`,
  },
];
