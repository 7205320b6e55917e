/**
 * Smaller answers from the writer thread: a call created by a change (`from: 'new'`) is answered
 * without the compiled operation and the arguments its record carries — the main thread sent both
 * in `change.create` and puts them back (the store writes the record from that very object, so
 * they are the same values). Everything else is answered whole.
 */
import type { InvocationChange, InvocationChangeResult, InvocationRecord } from '../../types.js';

type Slimmed = Omit<InvocationRecord, 'operation' | 'arguments'> & { slim: true };

const createdBy = (op: string, args: readonly unknown[]): InvocationRecord | null => {
  if (op !== 'applyInvocationChange') return null;
  const change = args[0] as InvocationChange | undefined;
  return change?.from === 'new' && change.create ? change.create : null;
};

/** In the writer: the answer to send for this write. */
export function slimAnswer(op: string, args: readonly unknown[], value: unknown): unknown {
  const created = createdBy(op, args);
  const result = value as InvocationChangeResult;
  if (!created || result.kind === 'stale') return value;
  if (result.record.invocation_id !== created.invocation_id) return value;
  const { operation: _operation, arguments: _arguments, ...rest } = result.record;
  const record: Slimmed = { ...rest, slim: true };
  return { ...result, record };
}

/** On the main thread: the answer as the store gave it. */
export function restoreAnswer(op: string, args: readonly unknown[], value: unknown): unknown {
  const created = createdBy(op, args);
  const result = value as { kind: string; record?: Slimmed };
  if (!created || !result.record?.slim) return value;
  const { slim: _slim, ...rest } = result.record;
  const record: InvocationRecord = { ...rest, operation: created.operation, arguments: created.arguments };
  return { ...result, record };
}
