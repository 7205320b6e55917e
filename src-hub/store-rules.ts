/**
 * Default wiring of the rules the store applies inside its transactions (store/rules.ts): the
 * permit policy, session enrollment, the operation rate limit, and the event renderers.
 */
import { toReceipt } from './invocations/receipt.js';
import type { StoreRules } from './store/rules.js';
import { evaluateEnrollment } from './tasks/enrollment.js';
import { evaluateOperationRate, evaluatePermit, WINDOW_MS } from './tasks/policy.js';
import { taskWindowMs, toTaskView } from './tasks/view.js';

export const STORE_RULES: StoreRules = {
  evaluatePermit,
  evaluateEnrollment,
  evaluateOperationRate,
  windowMs: (window) => WINDOW_MS[window],
  taskWindowMs,
  invocationEvent: (record, approval) => ({
    type: 'invocation.changed',
    receipt: toReceipt(record, approval),
  }),
  taskEvent: (task, usage, nowMs) => ({ type: 'task.changed', task: toTaskView(task, usage, nowMs) }),
};
