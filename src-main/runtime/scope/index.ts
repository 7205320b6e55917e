export { SessionScopeSchema, ScopeMemberSchema, parseScope } from './schema.js';
export {
  createSqliteScopeStore,
  createMemoryScopeStore,
  ScopeStoreError,
  type SqliteScopeStore,
} from './sqlite-scope-store.js';
export { revalidateScopeWith, checkMembers } from './revalidate.js';
