export { inspectInvocation, resumeInvocation } from './remote.js';
export { attestInvocation } from './attest.js';
export { sessionStatus, statusEntries } from './status.js';
export * from './feedback.js';
