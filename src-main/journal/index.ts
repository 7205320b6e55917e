export * from './errors.js';
export * from './record.js';
export type { InvocationStore, StoreLockInfo } from './store.js';
export { createMemoryInvocationStore } from './memory-store.js';
export { createSqliteInvocationStore, type SqliteInvocationStoreOptions } from './sqlite-store.js';
export { createFileInvocationStore, type FileInvocationStoreOptions } from './file-store.js';
export { withRecordValidation } from './validating-store.js';
