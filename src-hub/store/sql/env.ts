/** What every store operation runs against: one SQL session (inside a transaction for writes) and the rules. */
import type { StoreRules } from '../rules.js';
import type { SqlSession } from './session.js';
import type { InvokeReadsCache } from './invoke-cache.js';
import type {
  BatchTaskRows,
  DeferredStateCounts,
  KeptEnrollments,
  KeptLiveSystems,
} from './ops/invocation-change.js';
import type { KeptInvocations } from './ops/invocations.js';
import type { TaskEventSink } from './task-events.js';

export interface OpEnv {
  sql: SqlSession;
  rules: StoreRules;
  /** Set while a group-commit batch runs: task views are published once per task at its end. */
  taskEvents?: TaskEventSink;
  /** The store's cache of an invoke's configuration rows (invoke-cache.ts); reads only. */
  invokeCache?: InvokeReadsCache;
  /** Set by a single writer that keeps the invocation rows it wrote (SQLite's writer thread). */
  invocations?: KeptInvocations;
  /** Set by a single writer that keeps the session enrollments it read or wrote (SQLite's writer thread). */
  enrollments?: KeptEnrollments;
  /** Set by a single writer that keeps the systems new calls found in service (SQLite's writer thread). */
  liveSystems?: KeptLiveSystems;
  /** Set by a single writer that writes its batch's task state counts once, summed (SQLite's writer thread). */
  stateCounts?: DeferredStateCounts;
  /** Set by a single writer that keeps the task rows its permit gates read in a transaction (SQLite's writer thread). */
  taskRows?: BatchTaskRows;
}
