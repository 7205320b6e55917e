/**
 * A task's boundary as the operator reads it: which systems and tools it allows, what its
 * constraints say (products, fields), and its write budget used and left. Shown on the task panel
 * (which shows the budget itself, with its meter: `budget={false}`) and in the header of a
 * conversation under the task.
 */
import React from 'react';
import type { TaskView } from '../../../src-shared/hub-api.js';
import { useT } from '../i18n/use-t.js';
import { useAuthorizationNames } from '../store/authorization-names.js';
import type { Translate } from '../i18n/index.js';
import { ruleWords } from '../logic/task-boundary.js';
import { AuthorizationKindBadge } from './KindBadge.js';

/** A rule in the operator's language from its schema; null when its shape is not one the desk words. */
function ruleText(schema: Record<string, unknown>, t: Translate): string | null {
  const words = ruleWords(schema);
  return words
    ? words
        .map((w) =>
          w.kind === 'values'
            ? t('task.ruleValues', { field: w.field, values: w.values })
            : t('task.ruleFields', { fields: w.fields || '—' }),
        )
        .join(' · ')
    : null;
}

export function TaskBoundary({
  task,
  budget = true,
}: {
  task: TaskView;
  budget?: boolean;
}): React.JSX.Element {
  const t = useT();
  const names = useAuthorizationNames();
  const b = task.boundary;
  return (
    <dl className="task-boundary" data-testid="task-boundary">
      {b.authorizations.map((a) => (
        <React.Fragment key={a.authorization_ref}>
          <dt>
            {names[a.authorization_ref] ?? a.authorization_ref}{' '}
            <AuthorizationKindBadge authorizationRef={a.authorization_ref} />
          </dt>
          <dd>{a.tools.join(', ')}</dd>
        </React.Fragment>
      ))}
      {b.constraints.map((c, i) => (
        <React.Fragment key={`c${i}`}>
          <dt>{t('task.boundaryConstraint', { tool: c.tool })}</dt>
          <dd>{ruleText(c.schema, t) ?? c.description ?? JSON.stringify(c.schema)}</dd>
        </React.Fragment>
      ))}
      {budget && (
        <>
          <dt>{t('task.boundaryBudget')}</dt>
          <dd data-testid="task-boundary-budget">
            {t('task.writes', { used: task.writes_used, left: task.writes_left, budget: b.write_budget })}
          </dd>
        </>
      )}
    </dl>
  );
}
