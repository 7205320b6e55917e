/** The idle panel's list; re-read once per change event from main (no polling). */
import { create } from 'zustand';
import type { UnresolvedItem } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';

export interface UnresolvedState {
  items: UnresolvedItem[];
  loaded: boolean;
  load(): Promise<void>;
  set(items: UnresolvedItem[]): void;
}

let inFlight: Promise<void> | null = null;
let again = false;

export const useUnresolved = create<UnresolvedState>((set) => ({
  items: [],
  loaded: false,
  async load() {
    // Coalesce bursts of change events into at most one read in flight plus one after it.
    if (inFlight) {
      again = true;
      return inFlight;
    }
    inFlight = (async () => {
      do {
        again = false;
        const { items } = await call('listUnresolved', {});
        set({ items, loaded: true });
      } while (again);
    })().finally(() => {
      inFlight = null;
    });
    return inFlight;
  },
  set: (items) => set({ items, loaded: true }),
}));
