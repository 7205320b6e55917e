export { createInvocationRuntime, newInvocationId, type InvocationRuntimeDeps } from './runtime.js';
export { createSqliteScopeStore, createMemoryScopeStore, ScopeStoreError } from '../scope/index.js';
