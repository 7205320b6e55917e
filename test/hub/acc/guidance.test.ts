// The guidance a declaration carries for the model's function description: every spelling systems
// use (BailingHub's when_to_use, its SDKs' whenToUse, our use_when), returns, examples, other hints,
// the approval prompt and rules — each part bounded, and valid against the wire contract.
import { describe, expect, it } from 'vitest';
import { modelGuidance } from '../../../src-hub/acc/index.js';
import { MODEL_GUIDANCE_LIMITS, ModelGuidanceSchema } from '../../../src-shared/hub-api.js';

const noApproval = { required: false, prompt: null, when: [] };

describe('model_guidance', () => {
  it('takes when_to_use, whenToUse or use_when, returns, examples and other hints', () => {
    expect(
      modelGuidance({
        guidance: {
          when_to_use: 'a refund is requested',
          returns: 'the refund record',
          examples: [{ order_id: 'SO-1', amount: 20 }, 'refund SO-2 in full'],
          context: ['orders', 'refunds'],
          restrictions: 'only paid orders',
        },
        approval: noApproval,
      }),
    ).toEqual({
      when_to_use: 'a refund is requested',
      returns: 'the refund record',
      examples: ['{"order_id":"SO-1","amount":20}', 'refund SO-2 in full'],
      notes: ['context: orders; refunds', 'restrictions: only paid orders'],
      approval_prompt: null,
      approval_when: [],
    });
    expect(
      modelGuidance({ guidance: { whenToUse: 'sdk spelling' }, approval: noApproval })?.when_to_use,
    ).toBe('sdk spelling');
    expect(modelGuidance({ guidance: { use_when: 'our spelling' }, approval: noApproval })?.when_to_use).toBe(
      'our spelling',
    );
  });

  it('carries the approval prompt and the rules (label, or the rule itself)', () => {
    const g = modelGuidance({
      guidance: null,
      approval: {
        required: false,
        prompt: 'Refund {amount} for {order_id}?',
        when: [
          { path: '/amount', op: 'gt', value: 500, label: 'refunds over 500 need a manager' },
          { path: '/tags', op: 'contains', value: 'vip' },
          { path: '/note', op: 'exists' },
        ],
      },
    });
    expect(g).toMatchObject({
      approval_prompt: 'Refund {amount} for {order_id}?',
      approval_when: ['refunds over 500 need a manager', 'tags contains vip', 'note is given'],
    });
  });

  it('is null when the system gave nothing, and bounded whatever it gave', () => {
    expect(modelGuidance({ guidance: null, approval: noApproval })).toBeNull();
    expect(modelGuidance({ guidance: {}, approval: { ...noApproval, prompt: 'unused' } })).toBeNull();
    const long = 'x'.repeat(10_000);
    const g = modelGuidance({
      guidance: {
        when_to_use: `line one\n\nline two ${long}`,
        returns: long,
        examples: Array.from({ length: 20 }, () => ({ text: long })),
        ...Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`hint_${i}`, long])),
      },
      approval: {
        required: true,
        prompt: long,
        when: Array.from({ length: 40 }, () => ({ path: '/a', op: 'eq' as const, value: long })),
      },
    });
    expect(ModelGuidanceSchema.parse(g)).toEqual(g);
    expect(g?.when_to_use?.startsWith('line one line two')).toBe(true);
    expect(g?.when_to_use).toHaveLength(MODEL_GUIDANCE_LIMITS.text);
    expect(g?.examples).toHaveLength(MODEL_GUIDANCE_LIMITS.examples);
    expect(g?.notes).toHaveLength(MODEL_GUIDANCE_LIMITS.notes);
    expect(g?.approval_when).toHaveLength(MODEL_GUIDANCE_LIMITS.approval_when);
    expect(JSON.stringify(g).length).toBeLessThan(8000);
  });
});
