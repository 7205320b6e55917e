/**
 * A compiled operation's JSON (the `operation_json` columns), parsed once per distinct text: every
 * call of a declaration reads the same text, so it gets the same parsed object, frozen (a change to
 * it would be a change to every call's), and rendering that object again gives back the text it
 * came from without serialising it. On SQLite the text also travels to the writer thread in place of
 * the object (writer/client.ts): a string is copied at once, where an object is walked field by
 * field on both sides.
 */
import type { CompiledOperation } from '../../acc/types.js';
import { deepFreeze } from './deep-freeze.js';

/** The most distinct operation texts kept (cleared when full: a declaration's text is parsed again). */
export const MAX_PARSED_OPERATIONS = 512;

const parsed = new Map<string, CompiledOperation>();
const textOf = new WeakMap<object, string>();

/** The operation a stored text holds: the same frozen object for the same text. */
export function parseOperation(text: string): CompiledOperation {
  let op = parsed.get(text);
  if (op === undefined) {
    op = deepFreeze(JSON.parse(text) as CompiledOperation);
    if (parsed.size >= MAX_PARSED_OPERATIONS) parsed.clear();
    parsed.set(text, op);
    textOf.set(op, text);
  }
  return op;
}

/** The text an operation was parsed from, or null when it was not parsed here (built in memory). */
export function parsedOperationText(op: CompiledOperation): string | null {
  return textOf.get(op) ?? null;
}

/** The operation as stored: the text it was parsed from, else its JSON. */
export function operationJson(op: CompiledOperation): string {
  return textOf.get(op) ?? JSON.stringify(op);
}
