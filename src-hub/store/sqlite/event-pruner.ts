/**
 * Event retention: the events table feeds resumable SSE streams, so it is pruned per client by age
 * and by count in one transaction, and each client's horizon (the last seq deleted) is kept so a
 * stream resuming below it can be told it missed events instead of silently skipping them.
 * Seqs are AUTOINCREMENT: a deleted seq is never reused.
 */
import type Database from 'better-sqlite3';

export function createEventPruner(
  db: Database.Database,
): (before: string, keepPerClient: number) => { deleted: number; clients: number } {
  const clients = db.prepare('SELECT DISTINCT client_id FROM events');
  const lastOld = db.prepare('SELECT MAX(seq) AS seq FROM events WHERE client_id = ? AND at < ?');
  const lastBeyondCount = db.prepare(
    'SELECT seq FROM events WHERE client_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?',
  );
  const remove = db.prepare('DELETE FROM events WHERE client_id = ? AND seq <= ?');
  const raise = db.prepare(
    'INSERT INTO event_horizons (client_id, pruned_through) VALUES (?, ?) ON CONFLICT (client_id) DO UPDATE SET pruned_through = MAX(pruned_through, excluded.pruned_through)',
  );
  return db.transaction((before: string, keepPerClient: number) => {
    let deleted = 0;
    let touched = 0;
    for (const { client_id: clientId } of clients.all() as Array<{ client_id: string }>) {
      const byAge = (lastOld.get(clientId, before) as { seq: number | null } | undefined)?.seq ?? 0;
      const byCount = (lastBeyondCount.get(clientId, keepPerClient) as { seq: number } | undefined)?.seq ?? 0;
      const cutoff = Math.max(byAge, byCount);
      if (cutoff === 0) continue;
      const n = remove.run(clientId, cutoff).changes;
      raise.run(clientId, cutoff);
      if (n > 0) {
        deleted += n;
        touched += 1;
      }
    }
    return { deleted, clients: touched };
  });
}
