/**
 * Which parts of which call cards the operator opened or closed (arguments, result), kept for the
 * app's lifetime so a card looks the same after switching views and back. A result starts open, the
 * arguments closed.
 */
import { create } from 'zustand';

export type CardPanel = 'arguments' | 'result';

export interface CardPanelsState {
  open: Record<string, boolean>;
  set(cardId: string, panel: CardPanel, open: boolean): void;
}

export const DEFAULT_OPEN: Readonly<Record<CardPanel, boolean>> = { arguments: false, result: true };

export const useCardPanels = create<CardPanelsState>((set) => ({
  open: {},
  set: (cardId, panel, open) => set((s) => ({ open: { ...s.open, [`${cardId}:${panel}`]: open } })),
}));

export function useCardPanel(cardId: string, panel: CardPanel): [boolean, (open: boolean) => void] {
  const open = useCardPanels((s) => s.open[`${cardId}:${panel}`] ?? DEFAULT_OPEN[panel]);
  const set = useCardPanels((s) => s.set);
  return [open, (next) => set(cardId, panel, next)];
}
