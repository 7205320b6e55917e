/** What the runtime's parts share: the Hub client, the stores, the per-session journals and scope checks. */
import type { RuntimeHubPort } from '../hub-port.js';
import type { InvocationStore } from '../../journal/index.js';
import type { ScopeCheck, ScopeStore, SessionScope } from '../invocation-ports.js';
import type { SessionJournal } from './session-journal.js';

export interface RuntimeContext {
  hub: RuntimeHubPort;
  store: InvocationStore | null;
  /** Why there is no store (`invocation_store_unsupported` details) when store is null. */
  unsupportedReason: string | null;
  scopeStore: ScopeStore;
  now: () => Date;
  newId: () => string;
  journal(sessionId: string): SessionJournal;
  /** Whole-scope revalidation against the Hub; the result is remembered per session for status. */
  revalidate(scope: SessionScope, signal?: AbortSignal): Promise<ScopeCheck>;
  lastScopeCheck(sessionId: string, fingerprint: string): ScopeCheck | null;
}
