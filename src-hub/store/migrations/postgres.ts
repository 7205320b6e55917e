/**
 * The PostgreSQL dialect of the numbered schema migrations (sqlite.ts has the same versions and
 * names). Differences from SQLite: epoch-millisecond columns are BIGINT; tool search is a tsvector
 * table with a GIN index instead of FTS5; append-only tables refuse changes through a trigger
 * function; and an event gets its seq only when it is sequenced after commit (`seq` NULL until
 * then, see store/postgres/event-sequencer.ts), so seq order is commit order across Hub instances.
 * Never edit a released migration: its checksum is verified at every start (index.ts).
 */
import type { Migration } from './index.js';

export const POSTGRES_MIGRATIONS: readonly Migration[] = [
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
CREATE TABLE operations_search (
  system_id TEXT NOT NULL, tool TEXT NOT NULL, document TSVECTOR NOT NULL, PRIMARY KEY (system_id, tool)
);
CREATE INDEX operations_search_document ON operations_search USING GIN (document);
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
  retry_after_ms BIGINT, result_json TEXT, result_truncated INTEGER NOT NULL DEFAULT 0,
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
  effect TEXT NOT NULL, granted_at_ms BIGINT NOT NULL, released_at_ms BIGINT
);
CREATE INDEX permits_open ON permits (task_id, released_at_ms);
CREATE INDEX permits_granted ON permits (task_id, granted_at_ms);
CREATE FUNCTION bailing_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% refuses %: %', TG_TABLE_NAME, TG_OP, TG_ARGV[0];
END $$;
CREATE TABLE audit (
  seq BIGSERIAL PRIMARY KEY, at TEXT NOT NULL, actor TEXT NOT NULL, kind TEXT NOT NULL,
  invocation_id TEXT, task_id TEXT, from_state TEXT, to_state TEXT, detail_json TEXT NOT NULL
);
CREATE INDEX audit_invocation ON audit (invocation_id);
CREATE INDEX audit_task ON audit (task_id);
CREATE TRIGGER audit_no_change BEFORE UPDATE OR DELETE ON audit
  FOR EACH ROW EXECUTE FUNCTION bailing_refuse_change('audit is append-only');
CREATE TRIGGER audit_no_truncate BEFORE TRUNCATE ON audit
  FOR EACH STATEMENT EXECUTE FUNCTION bailing_refuse_change('audit is append-only');
CREATE TABLE events (
  id BIGSERIAL PRIMARY KEY, seq BIGINT UNIQUE, client_id TEXT NOT NULL, type TEXT NOT NULL,
  payload_json TEXT NOT NULL, at TEXT NOT NULL
);
CREATE INDEX events_client ON events (client_id, seq);
CREATE INDEX events_unsequenced ON events (id) WHERE seq IS NULL;
CREATE TABLE event_counter (id INTEGER PRIMARY KEY CHECK (id = 1), last_seq BIGINT NOT NULL);
INSERT INTO event_counter (id, last_seq) VALUES (1, 0);
`,
  },
  {
    version: 2,
    name: 'operation_rate_and_session_enrollment',
    sql: `
CREATE TABLE operation_dispatches (
  invocation_id TEXT PRIMARY KEY, authorization_ref TEXT NOT NULL, tool TEXT NOT NULL,
  granted_at_ms BIGINT NOT NULL
);
CREATE INDEX operation_dispatches_window ON operation_dispatches (authorization_ref, tool, granted_at_ms);
CREATE TABLE session_enrollments (
  client_id TEXT NOT NULL, agent_session_id TEXT NOT NULL, task_id TEXT NOT NULL,
  invocation_id TEXT NOT NULL, enrolled_at TEXT NOT NULL,
  PRIMARY KEY (client_id, agent_session_id)
);
CREATE TRIGGER session_enrollments_no_change BEFORE UPDATE OR DELETE ON session_enrollments
  FOR EACH ROW EXECUTE FUNCTION bailing_refuse_change('an enrollment is permanent');
CREATE TRIGGER session_enrollments_no_truncate BEFORE TRUNCATE ON session_enrollments
  FOR EACH STATEMENT EXECUTE FUNCTION bailing_refuse_change('an enrollment is permanent');
`,
  },
  {
    version: 3,
    name: 'event_retention',
    sql: `
CREATE TABLE event_horizons (
  client_id TEXT PRIMARY KEY, pruned_through BIGINT NOT NULL
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
  started_at TEXT NOT NULL, lease_expires_at_ms BIGINT NOT NULL, stopped_at TEXT
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
  task_id TEXT NOT NULL, state TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (task_id, state));
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
    // per permit in every commit) goes.
    version: 11,
    name: 'permits_keyed_by_permit',
    sql: `
ALTER TABLE permits DROP CONSTRAINT permits_invocation_id_key;
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
