/**
 * A call's state at a glance: an icon whose shape differs per tone (in progress, done, failed,
 * needs checking) beside the state's words, so the state never rests on colour alone.
 */
import React from 'react';
import { cardTone, type CardTone } from '../../../src-shared/states.js';
import { useStateLabel, useT } from '../i18n/use-t.js';

const ICONS: Readonly<Record<CardTone, string>> = { pending: '◷', done: '✓', failed: '✕', check: '⚠' };

export function StateBadge({ state, testId }: { state: string; testId?: string }): React.JSX.Element {
  const t = useT();
  const label = useStateLabel();
  const tone = cardTone(state);
  return (
    <span className={`state-badge tone-${tone}`} data-tone={tone}>
      <span className="state-icon" role="img" aria-label={t(`tone.${tone}`)}>
        {ICONS[tone]}
      </span>
      <span data-testid={testId}>{label(state)}</span>
    </span>
  );
}
