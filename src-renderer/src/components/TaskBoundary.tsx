/**
 * A task's boundary as the operator reads it: which systems and tools it allows, what its
 * constraints say (products, fields), and its write budget used and left. Shown on the task panel
 * and in the header of a conversation under the task.
 */
import React from 'react';
import type { TaskView } from '../../../src-shared/hub-api.js';
import { useT } from '../i18n/use-t.js';
import { useAuthorizationNames } from '../store/authorization-names.js';

export function TaskBoundary({ task }: { task: TaskView }): React.JSX.Element {
  const t = useT();
  const names = useAuthorizationNames();
  const b = task.boundary;
  return (
    <dl className="task-boundary" data-testid="task-boundary">
      {b.authorizations.map((a) => (
        <React.Fragment key={a.authorization_ref}>
          <dt>{names[a.authorization_ref] ?? a.authorization_ref}</dt>
          <dd>{a.tools.join(', ')}</dd>
        </React.Fragment>
      ))}
      {b.constraints.map((c, i) => (
        <React.Fragment key={`c${i}`}>
          <dt>{t('task.boundaryConstraint', { tool: c.tool })}</dt>
          <dd>{c.description ?? JSON.stringify(c.schema)}</dd>
        </React.Fragment>
      ))}
      <dt>{t('task.boundaryBudget')}</dt>
      <dd data-testid="task-boundary-budget">
        {t('task.writes', { used: task.writes_used, left: task.writes_left, budget: b.write_budget })}
      </dd>
    </dl>
  );
}
