/**
 * Agent clients (their tokens are stored only as salted hashes). Every write of a client sets a new
 * configuration generation in its own transaction (config-generation.ts), as the configuration
 * writes do: the Hub keeps the tokens it verified against it (http/auth.ts), so a rotated token is
 * refused by the first request whose reads see the rotation, on any instance.
 */
import type { AuditInput, ClientRecord, CredentialRows } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toClient } from '../rows.js';
import { io, started, type Row, type Step } from '../session.js';
import { insertAudit } from './audit.js';
import { noteConfigChange, readConfigGeneration } from './config-generation.js';
import { ADMIN_TOKEN_META, readMeta } from './meta.js';

export function* createClient({ sql }: OpEnv, c: ClientRecord, audit: AuditInput): Step<void> {
  yield* io(
    sql.run('INSERT INTO clients (client_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)', [
      c.client_id,
      c.name,
      c.token_hash,
      c.created_at,
    ]),
  );
  yield* insertAudit(sql, audit, c.created_at);
  yield* noteConfigChange(sql);
}

export function* upsertClient({ sql }: OpEnv, c: ClientRecord, audit: AuditInput): Step<void> {
  yield* io(
    sql.run(
      `INSERT INTO clients (client_id, name, token_hash, created_at) VALUES (?, ?, ?, ?)
       ON CONFLICT (client_id) DO UPDATE SET name = excluded.name, token_hash = excluded.token_hash`,
      [c.client_id, c.name, c.token_hash, c.created_at],
    ),
  );
  yield* insertAudit(sql, audit, c.created_at);
  yield* noteConfigChange(sql);
}

export function* getClient({ sql }: OpEnv, clientId: string): Step<ClientRecord | null> {
  const row = yield* io(sql.get<Row>('SELECT * FROM clients WHERE client_id = ?', [clientId]));
  return row ? toClient(row) : null;
}

export function* listClients({ sql }: OpEnv): Step<ClientRecord[]> {
  return (yield* io(sql.all<Row>('SELECT * FROM clients ORDER BY created_at, client_id'))).map(toClient);
}

/**
 * What a presented token is checked against: the configuration generation (read first), the named
 * client's row and the admin token's hash. Read together (registry.ts GROUPED_READS): one read
 * transaction on SQLite, one statement on PostgreSQL, so the rows are those of that generation.
 */
export function* credentialRows(env: OpEnv, clientId: string | null): Step<CredentialRows> {
  const generationRead = started(readConfigGeneration(env.sql));
  const clientRead = clientId !== null ? started(getClient(env, clientId)) : null;
  const adminRead = started(readMeta(env.sql, ADMIN_TOKEN_META));
  return {
    generation: yield* generationRead,
    client: clientRead ? yield* clientRead : null,
    admin_token_hash: yield* adminRead,
  };
}
