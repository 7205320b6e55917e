/**
 * Plans that must not depend on what the statistics say. Every statement is a named prepared
 * statement (session.ts), so a connection plans it a few times and then keeps one generic plan for
 * its life: a plan made while a table was small (a fresh database, or one not analyzed yet) stays
 * in use as the table grows. Left to itself the planner chose, on a new database, a sequential scan
 * of `invocations` for the set-based run's check of which calls exist (a run of 16 calls read every
 * call: 7 ms at 10,000), and for a task's oldest unresolved calls the index on `state` alone plus a
 * sort (every call of the state, every task's).
 *
 * So the statements whose cost must not grow with the table are planned with these settings, set
 * for the rest of their transaction (a statement sent right before them, pipelined: no round trip
 * of its own): no sequential scan where an index serves, no sort where an index gives the order.
 * They only take paths away that an index can replace; a statement with no such index is planned
 * as before. A path taken away is priced at PostgreSQL's "disable cost" (10^10), so a plan that still
 * needs one crosses `jit_above_cost` and would be JIT-compiled at every execution (0.5–1 s each); JIT
 * is therefore off for the same transaction (these are short index reads, which never gain from it).
 */
export const INDEX_PLANS = `SELECT set_config('enable_seqscan', 'off', true), set_config('enable_sort', 'off', true), set_config('jit', 'off', true)`;
