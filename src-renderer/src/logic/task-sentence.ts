/**
 * The exact sentence for a task's current state, derived only from the Hub's TaskView: first what
 * dispatch may do now, then what is still open, most urgent first. The example of docs/design.md#what-the-product-does-for-that: a paused task with
 * one call whose result is unknown reads "Further dispatch is paused. One earlier request still
 * needs checking."
 */
import type { TaskView } from '../../../src-shared/hub-api.js';
import type { UnresolvedInvocationState } from '../../../src-shared/states.js';
import type { MessageKey } from '../i18n/en.js';
import type { Translate } from '../i18n/index.js';

/**
 * The sentence of each unresolved state (UNRESOLVED_INVOCATION_STATES; the type makes it whole),
 * most urgent first: a result that needs checking, then pending approvals, then the rest.
 */
const SENTENCE_OF: Readonly<Record<UnresolvedInvocationState, string>> = {
  unknown: 'unknown',
  awaiting_approval: 'awaiting',
  approved: 'approved',
  dispatching: 'running',
  unverified: 'unverified',
};
const OPEN_STATES = Object.entries(SENTENCE_OF) as Array<[UnresolvedInvocationState, string]>;

/**
 * Count of calls in a state, from the Hub's counts: the `unresolved` list holds only the oldest
 * TASK_VIEW_UNRESOLVED_LIMIT calls, so its length is not a count.
 */
function countOf(task: TaskView, state: UnresolvedInvocationState): number {
  return task.counts[state] ?? 0;
}

export function taskSentenceParts(
  task: TaskView,
): Array<{ key: MessageKey; params?: Record<string, number> }> {
  const parts: Array<{ key: MessageKey; params?: Record<string, number> }> = [];
  if (task.state === 'cancelled') parts.push({ key: 'sentence.cancelled' });
  else if (task.expired) parts.push({ key: 'sentence.expired' });
  else if (task.state === 'paused') parts.push({ key: 'sentence.paused' });
  else if (task.boundary.write_budget > 0 && task.writes_left <= 0)
    parts.push({ key: 'sentence.budgetSpent' });
  else
    parts.push({
      key: 'sentence.active',
      params: { left: task.writes_left, budget: task.boundary.write_budget },
    });

  let anyOpen = false;
  for (const [state, name] of OPEN_STATES) {
    const n = countOf(task, state);
    if (n <= 0) continue;
    anyOpen = true;
    parts.push(
      n === 1
        ? { key: `sentence.${name}.one` as MessageKey }
        : { key: `sentence.${name}.many` as MessageKey, params: { n } },
    );
  }
  const dispatchStopped = task.state !== 'active' || task.expired;
  if (!anyOpen && dispatchStopped) parts.push({ key: 'sentence.nothingOpen' });
  return parts;
}

export function taskSentence(task: TaskView, t: Translate): string {
  return taskSentenceParts(task)
    .map((p) => t(p.key, p.params))
    .join(' ');
}
