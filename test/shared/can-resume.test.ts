// Resume is decided in one place (canResume, src-shared/states.ts) for cards, the Needs attention
// list and live receipts in the renderer; `unverified` is offered like `unknown` because the Hub
// reconciles both from business evidence and never re-sends (docs/design.md#resume).
import { describe, expect, it } from 'vitest';
import {
  canResume,
  INVOCATION_STATES,
  RECONCILABLE_INVOCATION_STATES,
  RESUMABLE_INVOCATION_STATES,
} from '../../src-shared/states.js';

const call = (state: string | null, over: Partial<Parameters<typeof canResume>[0]> = {}) =>
  canResume({ invocationId: 'inv_00000001', targetKnown: true, unsaved: false, state, ...over });

describe('canResume', () => {
  it('offers Resume for approved, unknown and unverified calls only', () => {
    const offered = INVOCATION_STATES.filter((s) => call(s));
    expect(offered).toEqual(['approved', 'unknown', 'unverified']);
    expect([...RESUMABLE_INVOCATION_STATES]).toEqual(['approved', ...RECONCILABLE_INVOCATION_STATES]);
  });

  it('offers it for a saved dispatch fence the Hub never answered', () => {
    expect(call('pending_dispatch')).toBe(true);
  });

  it('never without the original id and target, nor while anything of the call is unsaved', () => {
    expect(call('unknown', { invocationId: null })).toBe(false);
    expect(call('unknown', { targetKnown: false })).toBe(false);
    expect(call('unverified', { unsaved: true })).toBe(false);
    expect(call(null)).toBe(false);
    expect(call('validating')).toBe(false);
    expect(call('refused')).toBe(false);
  });
});
