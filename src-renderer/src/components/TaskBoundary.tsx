/**
 * A task's boundary as the operator reads it: which systems and tools it allows (each system by
 * name, marked when it was retired since), what its constraints say (products, fields), and its
 * write budget used and left. Shown on the task panel
 * (which shows the budget itself, with its meter: `budget={false}`) and in the header of a
 * conversation under the task.
 */
import React from 'react';
import type { TaskView } from '../../../src-shared/hub-api.js';
import { useT } from '../i18n/use-t.js';
import { useApp } from '../store/app.js';
import { useTaskSystems, type TaskSystemNaming } from '../store/authorization-names.js';
import type { Translate } from '../i18n/index.js';
import { ruleWords } from '../logic/task-boundary.js';
import { KindBadge } from './KindBadge.js';

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

/** A retired system, marked beside its name (worded from its state's code). */
export function SystemStateMark({ system }: { system: TaskSystemNaming }): React.JSX.Element | null {
  const t = useT();
  const lang = useApp((s) => s.lang);
  if (system.state !== 'retired') return null;
  // The date is known from a task's view only; a conversation's retire notice carries none.
  const title = system.retired_at
    ? t('systemState.retiredSince', {
        at: new Date(system.retired_at).toLocaleString(lang === 'zh' ? 'zh-CN' : undefined),
      })
    : t('systemState.retiredUndated');
  return (
    <span
      className="system-state state-retired"
      data-testid="system-state"
      data-code={system.state}
      title={title}
    >
      {t(`systemState.${system.state}`)}
    </span>
  );
}

export function TaskBoundary({
  task,
  budget = true,
}: {
  task: TaskView;
  budget?: boolean;
}): React.JSX.Element {
  const t = useT();
  const systemOf = useTaskSystems(task);
  const b = task.boundary;
  return (
    <dl className="task-boundary" data-testid="task-boundary">
      {b.authorizations.map((a) => {
        const system = systemOf(a.authorization_ref);
        return (
          <React.Fragment key={a.authorization_ref}>
            <dt data-testid="task-boundary-system" data-system-state={system.state}>
              {system.name} <KindBadge kind={system.kind} /> <SystemStateMark system={system} />
            </dt>
            <dd>{a.tools.join(', ')}</dd>
          </React.Fragment>
        );
      })}
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
