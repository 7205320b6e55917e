/** Hooks for the current language's translator and state labels. */
import { useMemo } from 'react';
import { useApp } from '../store/app.js';
import { stateLabel, translator, type Translate } from './index.js';

export function useT(): Translate {
  const lang = useApp((s) => s.lang);
  return useMemo(() => translator(lang), [lang]);
}

export function useStateLabel(): (state: string) => string {
  const lang = useApp((s) => s.lang);
  return useMemo(() => (state: string) => stateLabel(state, lang), [lang]);
}
