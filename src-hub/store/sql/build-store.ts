/**
 * The HubStore both dialects share: every method is one named operation (store/sql/ops) run by the
 * dialect's runner (reads and writes). What is not an operation — identity, durability, leases,
 * close — comes from the dialect as `base`.
 */
import type { HubStore } from '../types.js';
import type { OpRunner } from './registry.js';

export type StoreBase = Pick<
  HubStore,
  | 'kind'
  | 'shared'
  | 'durability'
  | 'hubId'
  | 'tokenSalt'
  | 'close'
  | 'onEvents'
  | 'flushEvents'
  | 'commitStats'
>;

export function buildHubStore(run: OpRunner, base: StoreBase): HubStore {
  return {
    ...base,
    getMeta: (key) => run.read('getMeta', key),
    setMeta: (key, value) => run.write('setMeta', key, value),
    setAdminTokenHash: (hash) => run.write('setAdminTokenHash', hash),
    configGeneration: () => run.read('configGeneration'),
    migrations: () => run.read('listMigrations'),

    createClient: (c, audit) => run.write('createClient', c, audit),
    upsertClient: (c, audit) => run.write('upsertClient', c, audit),
    getClient: (id) => run.read('getClient', id),
    credentialRows: (id) => run.read('credentialRows', id),
    listClients: () => run.read('listClients'),

    upsertSystem: (s, at, audit) => run.write('upsertSystem', s, at, audit),
    getSystem: (id) => run.read('getSystem', id),
    listSystems: () => run.read('listSystems'),
    retireSystem: (id, at, audit) => run.write('retireSystem', id, at, audit),
    resealSecrets: (secrets, meta, audit) => run.write('resealSecrets', secrets, meta, audit),
    replaceOperations: (id, ops, rev, diagnostics, at, audit) =>
      run.write('replaceOperations', id, ops, rev, diagnostics, at, audit),
    recordDiagnostics: (id, diagnostics, audit) => run.write('recordDiagnostics', id, diagnostics, audit),
    replaceMcpCatalog: (change) => run.write('replaceMcpCatalog', change),
    currentOperation: (id, tool) => run.read('currentOperation', id, tool),
    currentOperations: (ids) => run.read('currentOperations', ids),
    searchOperations: (words, ids, limit) => run.read('searchOperations', words, ids, limit),

    createAuthorization: (a, audit) => run.write('createAuthorization', a, audit),
    getAuthorization: (ref) => run.read('getAuthorization', ref),
    listAuthorizations: (clientId) => run.read('listAuthorizations', clientId),
    grant: (ref, clientId, audit) => run.write('grant', ref, clientId, audit),
    isGranted: (ref, clientId) => run.read('isGranted', ref, clientId),
    grantees: (ref) => run.read('grantees', ref),
    updateAuthorization: (change) => run.write('updateAuthorization', change),

    createRun: (r) => run.write('createRun', r),
    getRun: (id) => run.read('getRun', id),
    endRun: (id, at) => run.write('endRun', id, at),

    getInvocation: (id) => run.read('getInvocation', id),
    invokeReads: (q) => run.read('invokeReads', q),
    applyInvocationChange: (change) => run.write('applyInvocationChange', change),
    listInvocationsInState: (state) => run.read('listInvocationsInState', state),

    getApproval: (id) => run.read('getApproval', id),
    listApprovals: (state) => run.read('listApprovals', state),

    appendAudit: (entry, at) => run.write('appendAudit', entry, at),
    listAudit: (filter) => run.read('listAudit', filter),

    listEvents: (clientId, afterSeq, limit) => run.read('listEvents', clientId, afterSeq, limit),
    readEventPage: (clientId, afterSeq, limits) => run.read('readEventPage', clientId, afterSeq, limits),
    eventClientsAfter: (afterSeq) => run.read('eventClientsAfter', afterSeq),
    pruneEvents: (opts) => run.write('pruneEvents', opts),
    eventHorizon: (clientId) => run.read('eventHorizon', clientId),
    appendEvent: (clientId, type, payload, at) => run.write('appendEvent', clientId, type, payload, at),

    createTask: (t, audit) => run.write('createTask', t, audit),
    getTask: (id) => run.read('getTask', id),
    listTasks: (clientId) => run.read('listTasks', clientId),
    changeTaskState: (change) => run.write('changeTaskState', change),
    taskUsage: (id, nowMs, windowMs) => run.read('taskUsage', id, nowMs, windowMs),
    listPermits: (id) => run.read('listPermits', id),
    getEnrollment: (clientId, sessionId) => run.read('getEnrollment', clientId, sessionId),

    registerInstance: (input) => run.write('registerInstance', input),
    renewInstanceLease: (id, incarnation, leaseMs) =>
      run.write('renewInstanceLease', id, incarnation, leaseMs),
    stopInstance: (id, incarnation, at) => run.write('stopInstance', id, incarnation, at),
    expireOtherInstances: (id) => run.write('expireOtherInstances', id),
    listInstances: () => run.read('listInstances'),
    listOrphanedDispatching: () => run.read('listOrphanedDispatching'),
  };
}
