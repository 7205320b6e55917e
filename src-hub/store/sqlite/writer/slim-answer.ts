/**
 * Smaller answers from the writer thread. A change that creates a call (`from: 'new'`) is answered
 * with only the fields of the stored record that differ from the `change.create` record the
 * caller sent (its state, dispatch, permit, times, reasons — not the compiled operation, the
 * arguments or the other fields it was created with); the main thread lays them over its own copy
 * of `change.create`. The store writes the record from that very object, so the result is the
 * stored record. Everything else is answered whole.
 */
import type { InvocationChange, InvocationChangeResult, InvocationRecord } from '../../types.js';

type Fields = Record<string, unknown>;

const createdBy = (op: string, args: readonly unknown[]): InvocationRecord | null => {
  if (op !== 'applyInvocationChange') return null;
  const change = args[0] as InvocationChange | undefined;
  return change?.from === 'new' && change.create ? change.create : null;
};

/**
 * In the writer, before the answer is posted: replaces a created call's record in the answer by
 * what differs from `change.create`; answers whether it did.
 */
export function slimAnswer(op: string, args: readonly unknown[], value: unknown): boolean {
  const created = createdBy(op, args) as Fields | null;
  const result = value as InvocationChangeResult;
  if (!created || result.kind === 'stale') return false;
  const record = result.record as unknown as Fields;
  if (record === created || record.invocation_id !== created.invocation_id) return false;
  const differs: Fields = {};
  for (const key in record) if (record[key] !== created[key] || !(key in created)) differs[key] = record[key];
  (result as { record: unknown }).record = differs;
  return true;
}

/** On the main thread: the answer as the store gave it (`slim`: the writer sent what differs). */
export function restoreAnswer(op: string, args: readonly unknown[], value: unknown, slim: boolean): unknown {
  if (!slim) return value;
  const created = createdBy(op, args);
  const result = value as { record?: Fields };
  if (!created || !result.record) throw new Error('a slim store answer without the record it was made from');
  result.record = { ...created, ...result.record };
  return value;
}
