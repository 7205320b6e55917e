/**
 * Everything POST /agent/v1/invocations reads before it decides, in one operation: the invocation
 * already under that id (a repeat is answered from it alone), the run, the authorization and its
 * grant to the client, the tool's current declaration, the task, and the system the call goes to.
 * SQLite runs it as one read transaction (store/sql/registry.ts, GROUPED_READS); PostgreSQL on one
 * connection, its reads pipelined: all of them in one socket write and one round trip (the
 * declaration and the system are found through the authorization instead of after its read).
 * Given a cache (OpEnv.invokeCache: the SQLite store's), the authorization, grant, declaration and
 * system come from it while the configuration generation read with them is still current
 * (sql/invoke-cache.ts): one small read in place of four.
 */
import type {
  AuthorizationRecord,
  InvokeReads,
  InvokeReadsQuery,
  OperationRecord,
  SystemRecord,
} from '../../types.js';
import type { OpEnv } from '../env.js';
import { toOperation, toSystem } from '../rows.js';
import { io, started, type Row, type SqlSession, type Step } from '../session.js';
import { getAuthorization, isGranted } from './authorizations.js';
import { readConfigGeneration } from './config-generation.js';
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
  const cache = env.invokeCache;
  // the generation first: a cached answer is used only against a generation read before its rows
  // (PostgreSQL runs the statements in the order started, each in its own snapshot); it is read
  // with or without a cache, for the client token the Hub let through from memory (http/auth.ts)
  const generationRead = started(readConfigGeneration(env.sql));
  // every read is started at once (PostgreSQL: one round trip for all, on one connection)
  const existingRead = started(getInvocation(env, q.invocation_id));
  const runRead = started(getRun(env, q.run_id));
  let cached = cache?.get(q.authorization_ref, q.client_id, q.tool);
  let configReads = cached ? null : startConfigReads(env, q);
  const taskRead = q.task_id !== null ? started(getTask(env, q.task_id)) : null;
  const generation = yield* generationRead;
  const existing = yield* existingRead;
  if (existing) return { existing, ...NOTHING_MORE, config_generation: generation };
  const run = yield* runRead;
  if (cached && cached.generation !== generation) {
    cached = undefined;
    configReads = startConfigReads(env, q);
  }
  let config: ConfigRows;
  if (cached) config = cached;
  else {
    config = yield* finishConfigReads(configReads!);
    const { authorization, operation, system } = config;
    if (cache && authorization && config.granted && operation && system)
      cache.set(q.authorization_ref, q.client_id, q.tool, {
        generation,
        authorization,
        granted: true,
        operation,
        system,
      });
  }
  const task = taskRead ? yield* taskRead : null;
  return {
    existing,
    run,
    authorization: config.authorization,
    granted: config.granted,
    operation: config.operation,
    task,
    system: config.system,
    config_generation: generation,
  };
}

interface ConfigRows {
  authorization: AuthorizationRecord | null;
  granted: boolean;
  operation: OperationRecord | null;
  system: SystemRecord | null;
}

function startConfigReads(env: OpEnv, q: InvokeReadsQuery) {
  return {
    authorization: started(getAuthorization(env, q.authorization_ref)),
    grant: started(isGranted(env, q.authorization_ref, q.client_id)),
    operation: started(declarationVia(env.sql, q.authorization_ref, q.tool)),
    system: started(systemVia(env.sql, q.authorization_ref)),
  };
}

function* finishConfigReads(reads: ReturnType<typeof startConfigReads>): Step<ConfigRows> {
  const authorization = yield* reads.authorization;
  const granted = authorization ? yield* reads.grant : false;
  // the declaration and the system only for an authorization granted to the client
  const operation = authorization && granted ? yield* reads.operation : null;
  const system = operation ? yield* reads.system : null;
  return { authorization, granted, operation, system };
}
