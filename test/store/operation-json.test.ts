// A compiled operation's stored JSON is parsed once per distinct text: the same frozen object for
// the same text, rendered back as that very text; an operation built in memory is serialised.
import { describe, expect, it } from 'vitest';
import {
  MAX_PARSED_OPERATIONS,
  operationJson,
  parsedOperationText,
  parseOperation,
} from '../../src-hub/store/sql/operation-json.js';
import { requestToPost, restoreOperation } from '../../src-hub/store/sqlite/writer/operation-by-text.js';
import type { InvocationChange } from '../../src-hub/store/types.js';
import { dispatchChange, invocation, operation } from './fixtures.js';

describe('compiled operations parsed from their stored text', () => {
  it('the same text gives the same object, frozen all the way down, and renders back as that text', () => {
    // key order and spacing as stored, not as JSON.stringify would write them again
    const text = JSON.stringify(operation('update_thing'), null, 1);
    const op = parseOperation(text);
    expect(parseOperation(`${text}`)).toBe(op);
    expect(op).toEqual(operation('update_thing'));
    expect(Object.isFrozen(op)).toBe(true);
    expect(Object.isFrozen(op.input_schema)).toBe(true);
    expect(() => {
      (op as { timeout_ms: number }).timeout_ms = 1;
    }).toThrow(TypeError);
    expect(operationJson(op)).toBe(text);
    expect(parsedOperationText(op)).toBe(text);
  });

  it('an operation built in memory is serialised (and has no stored text)', () => {
    const op = operation('built_here');
    expect(parsedOperationText(op)).toBeNull();
    expect(operationJson(op)).toBe(JSON.stringify(op));
    expect(Object.isFrozen(op)).toBe(false);
  });

  it('past the bound the kept texts are let go: a text is then parsed again into a new object', () => {
    const first = JSON.stringify(operation('first'));
    const op = parseOperation(first);
    for (let i = 0; i < MAX_PARSED_OPERATIONS; i++) parseOperation(JSON.stringify(operation(`tool_${i}`)));
    const again = parseOperation(first);
    expect(again).not.toBe(op);
    expect(again).toEqual(op);
    // the object parsed before still renders as its text
    expect(operationJson(op)).toBe(first);
  });
});

describe('a created call on its way to the SQLite writer thread', () => {
  it("carries its operation as the stored text, leaves the caller's change as it was, and gets the same object back", () => {
    const op = parseOperation(JSON.stringify(operation('sent_as_text')));
    const rec = invocation({ operation: op });
    const change = dispatchChange(rec);
    const request = { id: 1, op: 'applyInvocationChange' as const, args: [change] };
    const posted = requestToPost(request);
    expect(posted.operation_text).toBe(operationJson(op));
    const postedChange = posted.args[0] as InvocationChange;
    expect(postedChange.create?.operation).toBeNull();
    expect(postedChange.create?.arguments).toBe(rec.arguments);
    expect(change.create?.operation).toBe(op);
    expect(request.args[0]).toBe(change);
    // the writer's copy (structured clone) gets the operation back from the text
    const arrived = structuredClone(posted);
    restoreOperation(arrived);
    expect((arrived.args[0] as InvocationChange).create?.operation).toBe(op);
  });

  it('an operation built in memory, and every other write, travel as they are', () => {
    const built = { id: 2, op: 'applyInvocationChange' as const, args: [dispatchChange(invocation())] };
    expect(requestToPost(built)).toBe(built);
    const other = { id: 3, op: 'appendEvent' as const, args: ['c', 'x', {}, 'at'] };
    expect(requestToPost(other)).toBe(other);
  });
});
