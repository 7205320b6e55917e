/** What every store operation runs against: one SQL session (inside a transaction for writes) and the rules. */
import type { StoreRules } from '../rules.js';
import type { SqlSession } from './session.js';

export interface OpEnv {
  sql: SqlSession;
  rules: StoreRules;
}
