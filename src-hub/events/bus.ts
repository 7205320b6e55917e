/**
 * In-process wake-up signal for SSE streams. Events themselves live in the store's durable events
 * table; the bus only says "client X has something new" so streams read from the table at once.
 */
export interface EventBus {
  notify(clientId: string): void;
  /** Wakes every subscribed stream: the store cannot say whose events are new (missed notifications). */
  notifyAll(): void;
  subscribe(clientId: string, wake: () => void): () => void;
}

export function createEventBus(): EventBus {
  const subs = new Map<string, Set<() => void>>();
  return {
    notify(clientId) {
      for (const wake of subs.get(clientId) ?? []) wake();
    },
    notifyAll() {
      for (const set of [...subs.values()]) for (const wake of [...set]) wake();
    },
    subscribe(clientId, wake) {
      let set = subs.get(clientId);
      if (!set) subs.set(clientId, (set = new Set()));
      set.add(wake);
      return () => {
        set.delete(wake);
        if (set.size === 0) subs.delete(clientId);
      };
    },
  };
}
