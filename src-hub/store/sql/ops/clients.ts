/** Agent clients (their tokens are stored only as salted hashes). */
import type { AuditInput, ClientRecord } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toClient } from '../rows.js';
import { io, type Row, type Step } from '../session.js';
import { insertAudit } from './audit.js';

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
}

export function* getClient({ sql }: OpEnv, clientId: string): Step<ClientRecord | null> {
  const row = yield* io(sql.get<Row>('SELECT * FROM clients WHERE client_id = ?', [clientId]));
  return row ? toClient(row) : null;
}

export function* listClients({ sql }: OpEnv): Step<ClientRecord[]> {
  return (yield* io(sql.all<Row>('SELECT * FROM clients ORDER BY created_at, client_id'))).map(toClient);
}
