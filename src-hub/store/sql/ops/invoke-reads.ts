/**
 * Everything POST /agent/v1/invocations reads before it decides, in one operation: the invocation
 * already under that id (a repeat is answered from it alone), the run, the authorization and its
 * grant to the client, the tool's current declaration, the task, and the system the call goes to.
 * SQLite runs it as one read transaction (store/sql/registry.ts, GROUPED_READS); PostgreSQL on one
 * connection, its reads pipelined: those that need only the query in one round trip, the
 * declaration and the system (which need the authorization's system) in a second.
 */
import type { InvokeReads, InvokeReadsQuery } from '../../types.js';
import type { OpEnv } from '../env.js';
import { started, type Step } from '../session.js';
import { getAuthorization, isGranted } from './authorizations.js';
import { getInvocation } from './invocations.js';
import { currentOperation } from './operations.js';
import { getRun } from './runs.js';
import { getSystem } from './systems.js';
import { getTask } from './tasks.js';

const NOTHING_MORE = {
  run: null,
  authorization: null,
  granted: false,
  operation: null,
  task: null,
  system: null,
};

export function* invokeReads(env: OpEnv, q: InvokeReadsQuery): Step<InvokeReads> {
  // every read that needs only the query is started at once (PostgreSQL: one round trip for all)
  const existingRead = started(getInvocation(env, q.invocation_id));
  const runRead = started(getRun(env, q.run_id));
  const authorizationRead = started(getAuthorization(env, q.authorization_ref));
  const grantRead = started(isGranted(env, q.authorization_ref, q.client_id));
  const taskRead = q.task_id !== null ? started(getTask(env, q.task_id)) : null;
  const existing = yield* existingRead;
  if (existing) return { existing, ...NOTHING_MORE };
  const run = yield* runRead;
  const authorization = yield* authorizationRead;
  const granted = authorization ? yield* grantRead : false;
  // the declaration and the system together (the second round trip), for a granted authorization
  const reads =
    authorization && granted
      ? {
          operation: started(currentOperation(env, authorization.system_id, q.tool)),
          system: started(getSystem(env, authorization.system_id)),
        }
      : null;
  const operation = reads ? yield* reads.operation : null;
  const system = reads && operation ? yield* reads.system : null;
  const task = taskRead ? yield* taskRead : null;
  return { existing, run, authorization, granted, operation, task, system };
}
