/**
 * PostgreSQL: what a gate reads is serialised by a lock taken before reading it (an advisory
 * transaction lock on a key, or SELECT ... FOR UPDATE on the task row); an event is inserted
 * without a seq and gets one from the event sequencer after its transaction committed, so seqs
 * follow commit order across every Hub instance (event-sequencer.ts); tool search is a weighted
 * tsvector (tool name A, description B, system name C) ranked with ts_rank.
 */
import type { Dialect } from '../sql/dialect.js';
import { LOCK_KEY_SQL } from './combine.js';
import { lockTaskRow } from './lock-order.js';
import { io, type SqlSession } from '../sql/session.js';
import type { PgSession } from './session.js';

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');
const isPg = (s: SqlSession): s is PgSession => 'markEventAppended' in s;

export const POSTGRES_DIALECT: Dialect = {
  name: 'postgres',
  forUpdate: ' FOR UPDATE',
  nowMs: '(EXTRACT(EPOCH FROM clock_timestamp()) * 1000)::BIGINT',
  *lock(s, key) {
    // in a transaction the lock is not waited for: the next statement runs once it is held
    if (!isPg(s)) {
      yield* io(s.get(LOCK_KEY_SQL, [key]));
      return;
    }
    const waited = s.lockKey(key);
    if (waited) yield* io(waited);
  },
  lockTaskRow(s, taskId) {
    if (isPg(s)) lockTaskRow(s, taskId);
  },
  *appendEvent(s, clientId, type, payloadJson, at) {
    yield* io(
      s.write('INSERT INTO events (client_id, type, payload_json, at) VALUES (?, ?, ?, ?)', [
        clientId,
        type,
        payloadJson,
        at,
      ]),
    );
    if (isPg(s)) s.markEventAppended();
  },
  *indexOperations(s, systemId, systemName, ops) {
    yield* io(s.run('DELETE FROM operations_search WHERE system_id = ?', [systemId]));
    for (const op of ops) {
      yield* io(
        s.run(
          `INSERT INTO operations_search (system_id, tool, document) VALUES (?, ?,
             setweight(to_tsvector('simple', ?), 'A') || setweight(to_tsvector('simple', ?), 'B') ||
             setweight(to_tsvector('simple', ?), 'C'))`,
          [
            systemId,
            op.tool,
            op.tool.replace(/[_-]+/g, ' ') + ' ' + op.tool,
            op.operation.description ?? '',
            systemName,
          ],
        ),
      );
    }
  },
  *searchOperations(s, words, systemIds, limit) {
    const query = words.map((w) => `${w}:*`).join(' | ');
    const hits = yield* io(
      s.all<{ system_id: string; tool: string; rank: number }>(
        `SELECT system_id, tool, ts_rank('{0.05, 0.125, 0.25, 1.0}', document, q) AS rank
         FROM operations_search, to_tsquery('simple', ?) AS q
         WHERE document @@ q AND system_id IN (${placeholders(systemIds.length)})
         ORDER BY rank DESC, system_id, tool LIMIT ?`,
        [query, ...systemIds, limit],
      ),
    );
    return hits.map((h) => ({
      system_id: String(h.system_id),
      tool: String(h.tool),
      score: Math.round(Number(h.rank) * 1000) / 1000,
    }));
  },
};
