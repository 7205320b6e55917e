// A declaration's guidance reaches the model inside the function description, bounded to the
// 1,024 characters OpenAI accepts: when to use, when not, returns, restrictions, examples (with
// their arguments) and the approval prompt, the most useful first; control characters flattened.
import { describe, expect, it } from 'vitest';
import type { Declaration } from '../../src-shared/hub-api.js';
import { modelTools } from '../../src-main/runtime/model-tools.js';
import { MAX_TOOL_DESCRIPTION, toolDescription } from '../../src-main/runtime/tool-guidance.js';

const decl = (over: Partial<Declaration> = {}): Declaration => ({
  hub_id: 'hub_1',
  authorization_ref: 'auth-shop-a',
  system_id: 'shop-a',
  system_name: 'Shop A (homeware)',
  account: 'shop-a-operator',
  tool: 'update_product_content',
  description: 'Change the title or description of a product.',
  input_schema: { type: 'object', properties: { product_id: { type: 'integer' } } },
  effect: 'write',
  side_effect: 'write',
  risk_level: 'medium',
  approval: { required: true, prompt: 'Change the description of product {product_id}?', when: [] },
  idempotent: true,
  timeout_ms: 10_000,
  scope: 'products:write',
  audit_sensitive: false,
  guidance: null,
  declaration_revision: 'r1',
  ...over,
});

describe('tool guidance in the function description', () => {
  it('renders when to use, avoid, returns, restrictions, examples and the approval prompt', () => {
    const text = toolDescription(
      decl({
        guidance: {
          when_to_use: 'only the title or description of a product should change',
          avoid_when: 'the task says to leave descriptions unchanged',
          returns: 'the updated product with its new description',
          restrictions: 'price, stock and status are refused (422 field_not_editable)',
          examples: [
            {
              description: 'shorten a description',
              arguments: { product_id: 42, description: 'Walnut board.' },
            },
            'use plain text, no HTML',
          ],
        },
      }),
    );
    expect(text.split('\n')).toEqual([
      'Change the title or description of a product.',
      'System: Shop A (homeware) (shop-a), account shop-a-operator.',
      'Effect: write, idempotent. Requires human approval before it runs.',
      'When to use: only the title or description of a product should change',
      'Avoid when: the task says to leave descriptions unchanged',
      'Returns: the updated product with its new description',
      'Restrictions: price, stock and status are refused (422 field_not_editable)',
      'Approval prompt: Change the description of product {product_id}?',
      'Examples: shorten a description: {"product_id":42,"description":"Walnut board."} | use plain text, no HTML',
    ]);
  });

  it('reads the demo systems’ names (use_when) and other text fields under their own names', () => {
    const text = toolDescription(
      decl({
        approval: { required: false, prompt: null, when: [] },
        guidance: { use_when: 'stock is asked for', campaign_hint: 'spring' },
      }),
    );
    expect(text).toContain('When to use: stock is asked for');
    expect(text).toContain('campaign hint: spring');
    expect(text).not.toContain('Approval prompt');
  });

  it('reads a system built for BailingHub: whenToUse, examples as argument objects, the approval rules', () => {
    const text = toolDescription(
      decl({
        tool: 'refund_create',
        description: 'Create a refund for an order',
        approval: {
          required: false,
          prompt: 'Refund {amount} on order {order_id}?',
          when: [{ path: '/amount', op: 'gt', value: 500, label: 'refunds over 500 need a manager' }],
        },
        guidance: {
          whenToUse: 'the customer was charged and should get money back',
          examples: [{ order_id: 'SO-1001', amount: 20 }],
        },
        model_guidance: {
          when_to_use: 'the customer was charged and should get money back',
          returns: null,
          examples: ['{"order_id":"SO-1001","amount":20}'],
          notes: [],
          approval_prompt: 'Refund {amount} on order {order_id}?',
          approval_when: ['refunds over 500 need a manager'],
        },
      }),
    );
    expect(text).toContain('When to use: the customer was charged and should get money back');
    expect(text).toContain('Examples: {"order_id":"SO-1001","amount":20}');
    expect(text).toContain('Approval prompt: Refund {amount} on order {order_id}?');
    expect(text).toContain('Approval needed when: refunds over 500 need a manager');
  });

  it('stays within 1,024 characters however long the guidance is, and flattens control characters', () => {
    const long = 'x'.repeat(5000);
    const text = toolDescription(
      decl({
        description: `Line one\u0000\u001b[31m\nline two ${'d'.repeat(2000)}`,
        guidance: {
          when_to_use: long,
          returns: long,
          restrictions: long,
          examples: [long, long, long, long],
          extra: long,
        },
      }),
    );
    expect(text.length).toBeLessThanOrEqual(MAX_TOOL_DESCRIPTION);
    // eslint-disable-next-line no-control-regex
    expect(text).not.toMatch(/[\u0000-\u0009\u000b-\u001f]/);
    expect(text).toContain('When to use: xxx');
    expect(text.endsWith('…')).toBe(true);
    const [tool] = modelTools(
      [
        {
          functionName: 'auth_shop_a__update_product_content',
          declaration: decl({ guidance: { when_to_use: long } }),
        } as never,
      ],
      true,
    ).slice(3);
    expect((tool as { function: { description: string } }).function.description.length).toBeLessThanOrEqual(
      1024,
    );
  });
});
