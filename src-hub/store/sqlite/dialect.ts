/**
 * SQLite: one writer at a time holds the database's write lock for a whole transaction, so no row
 * or key locks are needed; events get their seq (AUTOINCREMENT) on insert, in commit order; tool
 * search is FTS5 with bm25 (tool name 4, description 1, system name 0.5).
 */
import type { Dialect } from '../sql/dialect.js';
import { io } from '../sql/session.js';

const placeholders = (n: number) => Array.from({ length: n }, () => '?').join(', ');

export const SQLITE_DIALECT: Dialect = {
  name: 'sqlite',
  forUpdate: '',
  nowMs: "CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER)",
  *lock() {
    // the transaction already holds the database's only write lock
  },
  *appendEvent(s, clientId, type, payloadJson, at) {
    yield* io(
      s.run('INSERT INTO events (client_id, type, payload_json, at) VALUES (?, ?, ?, ?)', [
        clientId,
        type,
        payloadJson,
        at,
      ]),
    );
  },
  *indexOperations(s, systemId, systemName, ops) {
    yield* io(s.run('DELETE FROM operations_fts WHERE system_id = ?', [systemId]));
    for (const op of ops) {
      yield* io(
        s.run(
          'INSERT INTO operations_fts (system_id, tool_name, tool, description, system_name) VALUES (?, ?, ?, ?, ?)',
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
    const match = words.map((w) => `"${w}"*`).join(' OR ');
    const hits = yield* io(
      s.all<{ system_id: string; tool: string; rank: number }>(
        `SELECT f.system_id AS system_id, f.tool_name AS tool, bm25(operations_fts, 0.0, 0.0, 4.0, 1.0, 0.5) AS rank
         FROM operations_fts f WHERE operations_fts MATCH ? AND f.system_id IN (${placeholders(systemIds.length)})
         ORDER BY rank LIMIT ?`,
        [match, ...systemIds, limit],
      ),
    );
    return hits.map((h) => ({
      system_id: String(h.system_id),
      tool: String(h.tool),
      score: Math.round(-Number(h.rank) * 1000) / 1000,
    }));
  },
};
