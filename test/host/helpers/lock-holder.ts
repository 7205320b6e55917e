// Child process for the file-lock test: starts a save, tells the parent once it holds the lock,
// then waits forever (the parent SIGKILLs it, like a host that dies while saving).
import { createFileInvocationStore } from '../../../src-main/journal/index.js';

const [directory, sessionId] = process.argv.slice(2) as [string, string];
const store = createFileInvocationStore({
  directory,
  hooks: {
    afterLock: () => {
      process.send?.('locked');
      return new Promise<void>(() => undefined);
    },
  },
});
void store.save(
  sessionId,
  { schema: 'bailing.agent-invocations.v2', sessionId, revision: 2, entries: [] },
  1,
);
setInterval(() => undefined, 1000);
