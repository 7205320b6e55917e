/**
 * The runtime's subscribers (the relay to the renderer, tests). Everything emitted is masked for
 * the known secrets first: nothing sent to a subscriber may carry one, e.g. echoed in a business
 * result.
 */
import { redactPayload } from '../archive/index.js';
import type { RuntimeEvent, RuntimeListener } from './desk-runtime.js';

export interface RuntimeEvents {
  emit(event: RuntimeEvent): void;
  subscribe(listener: RuntimeListener): () => void;
}

export function createRuntimeEvents(secrets: () => readonly string[]): RuntimeEvents {
  const listeners = new Set<RuntimeListener>();
  return {
    emit(raw) {
      const e = redactPayload(raw, secrets()) as RuntimeEvent;
      for (const l of listeners) {
        try {
          l(e);
        } catch {
          // a failing listener never breaks the runtime
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
