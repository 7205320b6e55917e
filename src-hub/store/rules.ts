/**
 * The decisions and renderings a store applies inside its transactions. They are pure functions
 * owned by the Hub's services (tasks/policy.ts, tasks/enrollment.ts, invocations/receipt.ts,
 * tasks/view.ts) and handed to the store as one object, so a change the store is asked to apply is
 * plain data (it can cross to the store's writer thread) and the store never imports a service.
 * The default wiring is src-hub/store-rules.ts.
 */
import type { RateWindow } from '../../src-shared/hub-api.js';
import type {
  ApprovalRecord,
  EnrollmentEvaluator,
  InvocationRecord,
  OperationRateEvaluator,
  PermitEvaluator,
  TaskRecord,
  TaskUsage,
} from './types.js';

export interface StoreRules {
  evaluatePermit: PermitEvaluator;
  evaluateEnrollment: EnrollmentEvaluator;
  evaluateOperationRate: OperationRateEvaluator;
  /** Length of a rate window in milliseconds. */
  windowMs(window: RateWindow): number;
  /** Length of the task's rate window, or null when it has no rate limit. */
  taskWindowMs(task: TaskRecord): number | null;
  /** The `invocation.changed` event payload. */
  invocationEvent(record: InvocationRecord, approval: ApprovalRecord | null): Record<string, unknown>;
  /** The `task.changed` event payload. */
  taskEvent(task: TaskRecord, usage: TaskUsage, nowMs: number): Record<string, unknown>;
}
