/**
 * The SSE feed (events table) and its retention. The feed is pruned per client by age and by
 * count in one transaction, and each client's horizon (the last seq deleted) is kept so a stream
 * resuming below it is told it missed events instead of silently skipping them. Seqs are never
 * reused.
 */
import type { EventRecord, StoredEventText } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toEvent } from '../rows.js';
import { io, type Row, type Step } from '../session.js';

export function* appendEvent(
  { sql }: OpEnv,
  clientId: string,
  type: string,
  payload: Record<string, unknown>,
  at: string,
): Step<void> {
  yield* sql.dialect.appendEvent(sql, clientId, type, JSON.stringify(payload), at);
}

export function* listEvents(
  { sql }: OpEnv,
  clientId: string,
  afterSeq: number,
  limit: number,
): Step<EventRecord[]> {
  const rows = yield* io(
    sql.all<Row>('SELECT * FROM events WHERE client_id = ? AND seq > ? ORDER BY seq LIMIT ?', [
      clientId,
      afterSeq,
      limit,
    ]),
  );
  return rows.map(toEvent);
}

/** Rows read per query while filling a page, so a page never holds more than this beyond its bounds. */
const PAGE_CHUNK = 32;

/**
 * One page of a client's events as stored text: at most `maxEvents`, and none after the event whose
 * payload crosses `maxBytes` (read in small chunks so memory stays near the byte bound).
 */
export function* readEventPage(
  { sql }: OpEnv,
  clientId: string,
  afterSeq: number,
  limits: { maxEvents: number; maxBytes: number },
): Step<StoredEventText[]> {
  const page: StoredEventText[] = [];
  let bytes = 0;
  let after = afterSeq;
  while (page.length < limits.maxEvents && bytes < limits.maxBytes) {
    const want = Math.min(PAGE_CHUNK, limits.maxEvents - page.length);
    const rows = yield* io(
      sql.all<Row>(
        'SELECT seq, type, payload_json FROM events WHERE client_id = ? AND seq > ? ORDER BY seq LIMIT ?',
        [clientId, after, want],
      ),
    );
    for (const r of rows) {
      const payload_json = String(r.payload_json);
      page.push({ seq: Number(r.seq), type: String(r.type), payload_json });
      bytes += payload_json.length;
      after = Number(r.seq);
      if (bytes >= limits.maxBytes) break;
    }
    if (rows.length < want) break;
  }
  return page;
}

/** The newest seq (0 when none) and the clients with events after `afterSeq`: one cheap poll for other writers. */
export function* eventClientsAfter(
  { sql }: OpEnv,
  afterSeq: number,
): Step<{ latest: number; clients: string[] }> {
  const row = yield* io(sql.get<{ latest: number | null }>('SELECT MAX(seq) AS latest FROM events'));
  const latest = Number(row?.latest ?? 0);
  if (latest <= afterSeq) return { latest, clients: [] };
  const rows = yield* io(
    sql.all<{ client_id: string }>('SELECT DISTINCT client_id FROM events WHERE seq > ? ORDER BY client_id', [
      afterSeq,
    ]),
  );
  return { latest, clients: rows.map((r) => String(r.client_id)) };
}

export function* eventHorizon({ sql }: OpEnv, clientId: string): Step<number> {
  const row = yield* io(
    sql.get<{ pruned_through: number }>('SELECT pruned_through FROM event_horizons WHERE client_id = ?', [
      clientId,
    ]),
  );
  return Number(row?.pruned_through ?? 0);
}

export function* pruneEvents(
  { sql }: OpEnv,
  opts: { before: string; keepPerClient: number },
): Step<{ deleted: number; clients: number }> {
  let deleted = 0;
  let touched = 0;
  const clients = yield* io(
    sql.all<{ client_id: string }>(
      'SELECT DISTINCT client_id FROM events WHERE seq IS NOT NULL ORDER BY client_id',
    ),
  );
  for (const { client_id: clientId } of clients) {
    const byAge = yield* io(
      sql.get<{ seq: number | null }>('SELECT MAX(seq) AS seq FROM events WHERE client_id = ? AND at < ?', [
        clientId,
        opts.before,
      ]),
    );
    const byCount = yield* io(
      sql.get<{ seq: number }>(
        'SELECT seq FROM events WHERE client_id = ? AND seq IS NOT NULL ORDER BY seq DESC LIMIT 1 OFFSET ?',
        [clientId, opts.keepPerClient],
      ),
    );
    const cutoff = Math.max(Number(byAge?.seq ?? 0), Number(byCount?.seq ?? 0));
    if (cutoff === 0) continue;
    const n = yield* io(sql.run('DELETE FROM events WHERE client_id = ? AND seq <= ?', [clientId, cutoff]));
    yield* io(
      sql.run(
        `INSERT INTO event_horizons (client_id, pruned_through) VALUES (?, ?)
         ON CONFLICT (client_id) DO UPDATE SET pruned_through = CASE
           WHEN excluded.pruned_through > event_horizons.pruned_through THEN excluded.pruned_through
           ELSE event_horizons.pruned_through END`,
        [clientId, cutoff],
      ),
    );
    if (n > 0) {
      deleted += n;
      touched += 1;
    }
  }
  return { deleted, clients: touched };
}
