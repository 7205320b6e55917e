/**
 * Every store operation by name, split into reads and writes. A write runs inside a transaction
 * (SQLite: the writer thread's group-commit batch; PostgreSQL: its own transaction); a read runs
 * outside one, except the snapshot reads, which need one consistent view.
 */
import type { OpEnv } from './env.js';
import type { Step } from './session.js';
import { appendAudit, listAudit } from './ops/audit.js';
import {
  createAuthorization,
  getAuthorization,
  grant,
  grantees,
  isGranted,
  listAuthorizations,
  updateAuthorization,
} from './ops/authorizations.js';
import { createClient, credentialRows, getClient, listClients, upsertClient } from './ops/clients.js';
import {
  appendEvent,
  eventClientsAfter,
  eventHorizon,
  listEvents,
  pruneEvents,
  readEventPage,
} from './ops/events.js';
import { applyInvocationChange } from './ops/invocation-change.js';
import { invokeReads } from './ops/invoke-reads.js';
import { getApproval, getInvocation, listApprovals, listInvocationsInState } from './ops/invocations.js';
import {
  expireOtherInstances,
  listInstances,
  listOrphanedDispatching,
  registerInstance,
  renewInstanceLease,
  stopInstance,
} from './ops/instances.js';
import {
  configGeneration,
  ensureIdentity,
  getMeta,
  listMigrations,
  setAdminTokenHash,
  setMeta,
} from './ops/meta.js';
import {
  currentOperation,
  currentOperations,
  replaceMcpCatalog,
  replaceOperations,
  searchOperations,
} from './ops/operations.js';
import { createRun, endRun, getRun } from './ops/runs.js';
import {
  getSystem,
  listSystems,
  recordDiagnostics,
  resealSecrets,
  retireSystem,
  upsertSystem,
} from './ops/systems.js';
import {
  changeTaskState,
  createTask,
  getEnrollment,
  getTask,
  listPermits,
  listTasks,
  taskUsage,
} from './ops/tasks.js';

export const READ_OPS = {
  getMeta,
  configGeneration,
  listMigrations,
  getClient,
  credentialRows,
  listClients,
  getSystem,
  listSystems,
  currentOperation,
  currentOperations,
  searchOperations,
  getAuthorization,
  listAuthorizations,
  isGranted,
  grantees,
  getRun,
  getInvocation,
  invokeReads,
  listInvocationsInState,
  getApproval,
  listApprovals,
  listAudit,
  listEvents,
  readEventPage,
  eventClientsAfter,
  eventHorizon,
  getTask,
  listTasks,
  taskUsage,
  listPermits,
  getEnrollment,
  listInstances,
  listOrphanedDispatching,
} as const;

/** Reads that must see one consistent state across their queries. */
export const SNAPSHOT_READS: ReadonlySet<ReadOpName> = new Set<ReadOpName>(['taskUsage']);

/**
 * Reads of several rows that need no consistent view, which SQLite still runs in one read
 * transaction: a read transaction that begins after a commit starts with an empty page cache, so
 * one per row would read the same pages again for each. PostgreSQL runs them on one connection, where
 * the statements an operation starts together (sql/session.ts `started`) leave in one round trip.
 */
export const GROUPED_READS: ReadonlySet<ReadOpName> = new Set<ReadOpName>(['invokeReads', 'credentialRows']);

export const WRITE_OPS = {
  setMeta,
  setAdminTokenHash,
  ensureIdentity,
  createClient,
  upsertClient,
  upsertSystem,
  retireSystem,
  resealSecrets,
  replaceOperations,
  replaceMcpCatalog,
  recordDiagnostics,
  createAuthorization,
  grant,
  updateAuthorization,
  createRun,
  endRun,
  applyInvocationChange,
  appendAudit,
  appendEvent,
  pruneEvents,
  createTask,
  changeTaskState,
  registerInstance,
  renewInstanceLease,
  stopInstance,
  expireOtherInstances,
} as const;

export type ReadOpName = keyof typeof READ_OPS;
export type WriteOpName = keyof typeof WRITE_OPS;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- matches any operation's own argument list
type AnyOp = (env: OpEnv, ...args: any[]) => Step<unknown>;
export type OpArgs<F extends AnyOp> = F extends (env: OpEnv, ...args: infer A) => Step<unknown> ? A : never;
export type OpResult<F extends AnyOp> = F extends (env: OpEnv, ...args: never[]) => Step<infer R> ? R : never;

/** Runs named operations; each dialect's store provides one (store/sqlite, store/postgres). */
export interface OpRunner {
  read<K extends ReadOpName>(
    op: K,
    ...args: OpArgs<(typeof READ_OPS)[K]>
  ): Promise<OpResult<(typeof READ_OPS)[K]>>;
  write<K extends WriteOpName>(
    op: K,
    ...args: OpArgs<(typeof WRITE_OPS)[K]>
  ): Promise<OpResult<(typeof WRITE_OPS)[K]>>;
}
