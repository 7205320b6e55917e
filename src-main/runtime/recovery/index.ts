export { inspectInvocation, resumeInvocation } from './remote.js';
export { sessionStatus, statusEntries } from './status.js';
export * from './feedback.js';
