/**
 * The task rows the permit gates of the running transaction read (sql/ops/invocation-change.ts
 * BatchTaskRows): 16 permits of one task in a batch read its row once, and each grant brings the
 * kept row up to date as its UPDATE does the stored one. Kept for one transaction only: the group
 * committer drops them when a transaction begins, after any write that is not an invocation change
 * (it may change a task row), and with everything else it keeps when anything is rolled back; an
 * invocation change drops them itself when it releases or refunds a permit.
 */
import type { BatchTaskRows } from '../../sql/ops/invocation-change.js';
import type { Row } from '../../sql/session.js';

export function createBatchTaskRows(): BatchTaskRows {
  const rows = new Map<string, Row>();
  return {
    get: (taskId) => rows.get(taskId),
    put(taskId, row) {
      rows.set(taskId, row);
    },
    drop() {
      rows.clear();
    },
  };
}
