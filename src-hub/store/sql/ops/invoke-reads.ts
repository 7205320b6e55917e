/**
 * Everything POST /agent/v1/invocations reads before it decides, in one operation: the invocation
 * already under that id (a repeat is answered from it alone), the run, the authorization and its
 * grant to the client, the tool's current declaration, the task, and the system the call goes to.
 * SQLite runs it as one read transaction (store/sql/registry.ts, GROUPED_READS); PostgreSQL on one
 * connection, its reads pipelined: all of them in one socket write and one round trip (the
 * declaration and the system are found through the authorization instead of after its read).
 */
import type { InvokeReads, InvokeReadsQuery, OperationRecord, SystemRecord } from '../../types.js';
import type { OpEnv } from '../env.js';
import { toOperation, toSystem } from '../rows.js';
import { io, started, type Row, type SqlSession, type Step } from '../session.js';
import { getAuthorization, isGranted } from './authorizations.js';
import { getInvocation } from './invocations.js';
import { getRun } from './runs.js';
import { getTask } from './tasks.js';

const NOTHING_MORE = {
  run: null,
  authorization: null,
  granted: false,
  operation: null,
  task: null,
  system: null,
};

/**
 * The tool's current declaration and the system of an authorization, found through it (its system
 * never changes), so they need not wait for the authorization's own read.
 */
function* declarationVia(s: SqlSession, ref: string, tool: string): Step<OperationRecord | null> {
  const row = yield* io(
    s.get<Row>(
      `SELECT o.* FROM authorizations a JOIN operations o ON o.system_id = a.system_id
       WHERE a.authorization_ref = ? AND o.tool = ? AND o.current = 1`,
      [ref, tool],
    ),
  );
  return row ? toOperation(row) : null;
}
function* systemVia(s: SqlSession, ref: string): Step<SystemRecord | null> {
  const row = yield* io(
    s.get<Row>(
      'SELECT y.* FROM authorizations a JOIN systems y ON y.system_id = a.system_id WHERE a.authorization_ref = ?',
      [ref],
    ),
  );
  return row ? toSystem(row) : null;
}

export function* invokeReads(env: OpEnv, q: InvokeReadsQuery): Step<InvokeReads> {
  // every read is started at once (PostgreSQL: one round trip for all, on one connection)
  const existingRead = started(getInvocation(env, q.invocation_id));
  const runRead = started(getRun(env, q.run_id));
  const authorizationRead = started(getAuthorization(env, q.authorization_ref));
  const grantRead = started(isGranted(env, q.authorization_ref, q.client_id));
  const operationRead = started(declarationVia(env.sql, q.authorization_ref, q.tool));
  const systemRead = started(systemVia(env.sql, q.authorization_ref));
  const taskRead = q.task_id !== null ? started(getTask(env, q.task_id)) : null;
  const existing = yield* existingRead;
  if (existing) return { existing, ...NOTHING_MORE };
  const run = yield* runRead;
  const authorization = yield* authorizationRead;
  const granted = authorization ? yield* grantRead : false;
  // the declaration and the system only for an authorization granted to the client
  const operation = authorization && granted ? yield* operationRead : null;
  const system = operation ? yield* systemRead : null;
  const task = taskRead ? yield* taskRead : null;
  return { existing, run, authorization, granted, operation, task, system };
}
