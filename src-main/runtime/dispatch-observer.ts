/**
 * Tells the tool executor the moment a governed request is handed to the Hub client. The
 * InvocationRuntime calls `hub.invoke` only after the journal fence was saved with CAS, so this is
 * the point where a call card leaves the host-side pre-dispatch phase (`pending_dispatch`) and
 * becomes `dispatching` ("Running": request sent or about to be). Metadata only; nothing is stored.
 */
import type { HubClient } from '../hub-client/index.js';

export interface DispatchNotice {
  invocation_id: string;
  run_id: string;
  host_call_id: string;
}

export interface DispatchObserver {
  /** Calls `fn` once when the request of (runId, hostCallId) is sent. Returns an unsubscribe. */
  watch(runId: string, hostCallId: string, fn: (notice: DispatchNotice) => void): () => void;
}

export interface DispatchObserverHub extends DispatchObserver {
  /** The same Hub client, whose `invoke` first notifies the watcher of that call. */
  wrap(hub: HubClient): HubClient;
}

const keyOf = (runId: string, hostCallId: string) => `${runId}\u0000${hostCallId}`;

export function createDispatchObserver(): DispatchObserverHub {
  const watchers = new Map<string, (notice: DispatchNotice) => void>();
  return {
    watch(runId, hostCallId, fn) {
      const key = keyOf(runId, hostCallId);
      watchers.set(key, fn);
      return () => {
        if (watchers.get(key) === fn) watchers.delete(key);
      };
    },
    wrap(hub) {
      const wrapped = Object.create(hub) as HubClient;
      const invoke: HubClient['invoke'] = (req, opts) => {
        const key = keyOf(req.run_id, req.host_call_id);
        const fn = watchers.get(key);
        if (fn) {
          watchers.delete(key);
          try {
            fn({ invocation_id: req.invocation_id, run_id: req.run_id, host_call_id: req.host_call_id });
          } catch {
            // a failing watcher never stops the dispatch
          }
        }
        return hub.invoke(req, opts);
      };
      Object.defineProperty(wrapped, 'invoke', { value: invoke, enumerable: true });
      return wrapped;
    },
  };
}
