/**
 * Whether the "Run a tool by hand" panel above the composer is open. Until the operator opens or
 * closes it, it is open exactly when no model is configured (then it is the only way to act); their
 * choice is kept for the app's lifetime.
 */
import { create } from 'zustand';

export const useRunnerPanel = create<{ chosen: boolean | null; choose(open: boolean): void }>((set) => ({
  chosen: null,
  choose: (open) => set({ chosen: open }),
}));

export function runnerOpen(chosen: boolean | null, modelConfigured: boolean): boolean {
  return chosen ?? !modelConfigured;
}
