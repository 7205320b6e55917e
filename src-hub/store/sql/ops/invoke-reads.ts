/**
 * Everything POST /agent/v1/invocations reads before it decides, in one operation: the invocation
 * already under that id (a repeat is answered from it alone), the run, the authorization and its
 * grant to the client, the tool's current declaration, the task, and the system the call goes to.
 * SQLite runs it as one read transaction (store/sql/registry.ts, GROUPED_READS).
 */
import type { InvokeReads, InvokeReadsQuery } from '../../types.js';
import type { OpEnv } from '../env.js';
import type { Step } from '../session.js';
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
  const existing = yield* getInvocation(env, q.invocation_id);
  if (existing) return { existing, ...NOTHING_MORE };
  const run = yield* getRun(env, q.run_id);
  const authorization = yield* getAuthorization(env, q.authorization_ref);
  const granted = authorization ? yield* isGranted(env, authorization.authorization_ref, q.client_id) : false;
  const operation =
    authorization && granted ? yield* currentOperation(env, authorization.system_id, q.tool) : null;
  const system = operation && authorization ? yield* getSystem(env, authorization.system_id) : null;
  const task = q.task_id !== null ? yield* getTask(env, q.task_id) : null;
  return { existing, run, authorization, granted, operation, task, system };
}
