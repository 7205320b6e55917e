// A host in its own process (for crash tests): opens the runtime over the given data directory and
// makes one governed call. The parent SIGKILLs it while the call is in flight.
import type { Declaration } from '../../../src-shared/hub-api.js';
import { createHubClient } from '../../../src-main/hub-client/index.js';
import { createSqliteInvocationStore } from '../../../src-main/journal/index.js';
import { createInvocationRuntime } from '../../../src-main/runtime/invocations/index.js';
import { createSqliteScopeStore } from '../../../src-main/runtime/scope/index.js';
import { join } from 'node:path';

interface Job {
  hubUrl: string;
  token: string;
  hubId: string;
  dataDir: string;
  sessionId: string;
  runId: string;
  declaration: Declaration;
  arguments: Record<string, unknown>;
}

const job = JSON.parse(process.argv[2]!) as Job;
const hub = createHubClient({ baseUrl: job.hubUrl, token: job.token, hubId: job.hubId });
const scopes = createSqliteScopeStore({ path: join(job.dataDir, 'scopes.sqlite') });
const runtime = createInvocationRuntime({
  hub,
  invocationStore: createSqliteInvocationStore({ path: join(job.dataDir, 'journal.sqlite') }),
  scopeStore: scopes,
});
const scope = await scopes.load(job.sessionId);
if (!scope) throw new Error('no scope');
process.send?.({ ready: true });
const out = await runtime.invokeGoverned(
  { sessionId: job.sessionId, scope, turnId: 'turn-1' },
  {
    declaration: job.declaration,
    arguments: job.arguments,
    runId: job.runId,
    turnId: 'turn-1',
    hostCallId: 'crash-1',
  },
);
process.send?.({ done: out.kind });
