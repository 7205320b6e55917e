/**
 * Events from main to the renderer(s). Every payload is validated (and stripped) against the
 * contract before any transport sees it, so a secret or a malformed shape never leaves main.
 */
import { EVENTS, type EventName, type EventPayload } from '../../src-shared/ipc/contract.js';

export type EventListener = <K extends EventName>(name: K, payload: EventPayload<K>) => void;

export interface EventBus {
  emit<K extends EventName>(name: K, payload: EventPayload<K>): void;
  subscribe(listener: EventListener): () => void;
}

export function createEventBus(opts: { onInvalid?: (name: string, message: string) => void } = {}): EventBus {
  const listeners = new Set<EventListener>();
  return {
    emit(name, payload) {
      const parsed = EVENTS[name].safeParse(payload);
      if (!parsed.success) {
        opts.onInvalid?.(name, parsed.error.issues[0]?.message ?? 'invalid');
        return;
      }
      for (const l of [...listeners]) {
        try {
          l(name, parsed.data as EventPayload<typeof name>);
        } catch (err) {
          opts.onInvalid?.(name, `listener failed: ${(err as Error).message}`);
        }
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}
