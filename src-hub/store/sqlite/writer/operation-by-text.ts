/**
 * A created call's compiled operation travels to the writer thread as the text it was read from
 * (sql/operation-json.ts), not as an object: a string is copied at once, where structured cloning
 * walks the operation's schemas field by field on both threads. The writer parses the text once per
 * distinct operation and writes that text into the call's row as it is.
 */
import { parseOperation, parsedOperationText } from '../../sql/operation-json.js';
import type { InvocationChange } from '../../types.js';
import type { WriteRequest } from './protocol.js';

/** The request to post for a write: a created call's operation replaced by its text when it has one. */
export function requestToPost(request: WriteRequest): WriteRequest {
  if (request.op !== 'applyInvocationChange') return request;
  const change = request.args[0] as InvocationChange | undefined;
  if (change?.from !== 'new' || !change.create) return request;
  const text = parsedOperationText(change.create.operation);
  if (text === null) return request;
  // copies: the caller's own change and record stay as they are
  const create = { ...change.create, operation: null };
  return { ...request, args: [{ ...change, create }, ...request.args.slice(1)], operation_text: text };
}

/** In the writer: the created call's operation back from its text (the same object for the same text). */
export function restoreOperation(request: WriteRequest): void {
  if (request.operation_text === undefined) return;
  const change = request.args[0] as InvocationChange;
  if (change.create) change.create.operation = parseOperation(request.operation_text);
}
