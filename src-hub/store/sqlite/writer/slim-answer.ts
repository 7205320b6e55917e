/**
 * Smaller answers from the writer thread: the compiled operation and the arguments of a call (the
 * largest part of its record, and fixed from its creation: a change never sets them) are not
 * copied back to the main thread when it already holds them.
 *
 * - A change that creates a call (`from: 'new'`) is answered with only the fields of the stored
 *   record that differ from the `change.create` record the caller sent (its state, dispatch,
 *   permit, times, reasons); the main thread lays them over its own copy of `change.create`. The
 *   store writes the record from that very object, so the result is the stored record.
 * - A later change of a call the main thread created `dispatching` through this writer (its
 *   outcome, an MCP task id) is answered with `operation` and `arguments` left null when the
 *   request is marked `held`: the main thread puts back the ones it kept from the creation
 *   (client.ts keeps them while the call is `dispatching`).
 *
 * Everything else is answered whole.
 */
import type { InvocationChange, InvocationChangeResult, InvocationRecord } from '../../types.js';

type Fields = Record<string, unknown>;

/** How an answer was made smaller: not at all, against the created record, or without the held fields. */
export type Slim = false | 'created' | 'held';

/** What the main thread keeps of a call it created, to restore a `held` answer. */
export interface HeldFields {
  operation: InvocationRecord['operation'];
  arguments: InvocationRecord['arguments'];
}

const changeOf = (op: string, args: readonly unknown[]): InvocationChange | null =>
  op === 'applyInvocationChange' ? ((args[0] as InvocationChange | undefined) ?? null) : null;

const createdBy = (op: string, args: readonly unknown[]): InvocationRecord | null => {
  const change = changeOf(op, args);
  return change?.from === 'new' && change.create ? change.create : null;
};

/** The id of the call an existing call's change applies to (null for any other write, or a creation). */
export function changedCallId(op: string, args: readonly unknown[]): string | null {
  const change = changeOf(op, args);
  return change && change.from !== 'new' ? change.invocation_id : null;
}

/**
 * In the writer, before the answer is posted: replaces a created call's record in the answer by
 * what differs from `change.create`, or (`held`) leaves out a changed call's operation and
 * arguments; answers how it made the answer smaller.
 */
export function slimAnswer(op: string, args: readonly unknown[], value: unknown, held = false): Slim {
  const result = value as InvocationChangeResult;
  if (held) {
    const id = changedCallId(op, args);
    if (id === null || result.kind === 'stale' || result.record.invocation_id !== id) return false;
    (result as { record: unknown }).record = { ...result.record, operation: null, arguments: null };
    return 'held';
  }
  const created = createdBy(op, args) as Fields | null;
  if (!created || result.kind === 'stale') return false;
  const record = result.record as unknown as Fields;
  if (record === created || record.invocation_id !== created.invocation_id) return false;
  const differs: Fields = {};
  for (const key in record) if (record[key] !== created[key] || !(key in created)) differs[key] = record[key];
  (result as { record: unknown }).record = differs;
  return 'created';
}

/**
 * On the main thread: the answer as the store gave it. `slim`: how the writer made it smaller;
 * `held`: the fields kept for a `held` answer.
 */
export function restoreAnswer(
  op: string,
  args: readonly unknown[],
  value: unknown,
  slim: Slim,
  held?: HeldFields,
): unknown {
  if (!slim) return value;
  const result = value as { record?: Fields };
  if (slim === 'held') {
    if (!held || !result.record)
      throw new Error('a held store answer without the fields it was made without');
    result.record.operation = held.operation;
    result.record.arguments = held.arguments;
    return value;
  }
  const created = createdBy(op, args);
  if (!created || !result.record) throw new Error('a slim store answer without the record it was made from');
  result.record = { ...created, ...result.record };
  return value;
}

/** The fields to keep for a call's later answers: a created call's, while it is `dispatching`. */
export function heldFieldsOf(op: string, args: readonly unknown[], value: unknown): HeldFields | null {
  const created = createdBy(op, args);
  const result = value as InvocationChangeResult;
  if (!created || result.kind !== 'applied' || result.record.state !== 'dispatching') return null;
  return { operation: result.record.operation, arguments: result.record.arguments };
}
