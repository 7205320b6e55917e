/**
 * Smaller answers from the writer thread: a call created by a change (`from: 'new'`) is answered
 * without the compiled operation and the arguments its record carries — the main thread sent both
 * in `change.create` and puts them back (the store writes the record from that very object, so
 * they are the same values). Everything else is answered whole. Neither side copies the record:
 * the writer blanks the two fields in the record the operation just built (nothing else holds it,
 * and it is only posted), and the main thread fills them into the record it just received.
 */
import type { InvocationChange, InvocationChangeResult, InvocationRecord } from '../../types.js';

const createdBy = (op: string, args: readonly unknown[]): InvocationRecord | null => {
  if (op !== 'applyInvocationChange') return null;
  const change = args[0] as InvocationChange | undefined;
  return change?.from === 'new' && change.create ? change.create : null;
};

type Blankable = { operation: unknown; arguments: unknown };

/** In the writer, before the answer is posted: blanks what the caller has; answers whether it did. */
export function slimAnswer(op: string, args: readonly unknown[], value: unknown): boolean {
  const created = createdBy(op, args);
  const result = value as InvocationChangeResult;
  if (!created || result.kind === 'stale') return false;
  const record = result.record;
  if (record === created || record.invocation_id !== created.invocation_id) return false;
  (record as Blankable).operation = null;
  (record as Blankable).arguments = null;
  return true;
}

/** On the main thread: the answer as the store gave it (`slim`: the writer blanked it). */
export function restoreAnswer(op: string, args: readonly unknown[], value: unknown, slim: boolean): unknown {
  if (!slim) return value;
  const created = createdBy(op, args);
  const record = (value as { record?: Blankable }).record;
  if (!created || !record) throw new Error('a slim store answer without the record it was made from');
  record.operation = created.operation;
  record.arguments = created.arguments;
  return value;
}
