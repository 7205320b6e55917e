/**
 * The task rows the permit gates of the running transaction read (sql/ops/invocation-change.ts
 * BatchTaskRows): 16 permits of one task in a batch read its row once, and each grant is done to
 * the kept row, which writes the stored row once for all of them (`flush`: the counters and time
 * the grants' one-by-one UPDATEs would have left). Kept for one transaction only. The stored row is
 * written before anything reads or changes it other than through the kept row:
 *   - `drop` (a permit released or refunded, any write that is not an invocation change) writes the
 *     grants held, then forgets the rows;
 *   - the group committer flushes before the batch's task views read the rows, at the end of each
 *     write's savepoint when a batch runs write by write, and so always before COMMIT;
 *   - `discard` forgets rows and unwritten grants alike: at every BEGIN and with any rollback.
 */
import { grantedRow, type BatchTaskRows } from '../../sql/ops/invocation-change.js';
import { io, runSync, type Row, type SqlSession } from '../../sql/session.js';

const WRITE_GRANTS =
  'UPDATE tasks SET writes_used = ?, permits_granted = ?, permits_open = ?, updated_at = ? WHERE task_id = ?';

export interface WriterTaskRows extends BatchTaskRows {
  /** Writes the grants the kept rows hold to the stored rows; the rows stay kept. */
  flush(): void;
  /** Forgets every kept row and the grants not yet written (their transaction or savepoint was rolled back). */
  discard(): void;
}

export function createBatchTaskRows(s: SqlSession): WriterTaskRows {
  const rows = new Map<string, Row>();
  /** The kept rows holding grants the stored rows do not have yet. */
  const granted = new Set<string>();
  const flush = () => {
    for (const taskId of granted) {
      const r = rows.get(taskId)!;
      const values = [r.writes_used, r.permits_granted, r.permits_open, r.updated_at, taskId];
      runSync(io(s.write(WRITE_GRANTS, values as Parameters<SqlSession['write']>[1], 1)));
    }
    granted.clear();
  };
  return {
    get: (taskId) => rows.get(taskId),
    put(taskId, row) {
      rows.set(taskId, row);
    },
    grant(taskId, effect, at) {
      const row = rows.get(taskId);
      if (row === undefined) return false;
      grantedRow(row, effect, at);
      granted.add(taskId);
      return true;
    },
    flush,
    drop() {
      flush();
      rows.clear();
    },
    discard() {
      granted.clear();
      rows.clear();
    },
  };
}
