/**
 * Burst control for "something changed, read again" signals: the first signal of a burst fires at
 * once, the rest of the burst fires once more at the end of the window. A replay of thousands of
 * Hub events (a reconnect after a long absence) then costs two re-reads, not thousands. Used by the
 * main process's relay (idle panel signals) and the renderer's event wiring (task timeline).
 */
export interface Coalescer<K> {
  signal(key: K): void;
  dispose(): void;
}

export function createCoalescer<K>(fire: (key: K) => void, windowMs: number): Coalescer<K> {
  const windows = new Map<K, { pending: boolean; timer: ReturnType<typeof setTimeout> }>();
  const close = (key: K) => {
    const w = windows.get(key);
    windows.delete(key);
    if (w?.pending) fire(key);
  };
  return {
    signal(key) {
      const w = windows.get(key);
      if (w) {
        w.pending = true;
        return;
      }
      fire(key);
      const timer = setTimeout(() => close(key), windowMs);
      (timer as { unref?: () => void }).unref?.(); // Node: never keeps the process alive
      windows.set(key, { pending: false, timer });
    },
    dispose() {
      for (const w of windows.values()) clearTimeout(w.timer);
      windows.clear();
    },
  };
}
