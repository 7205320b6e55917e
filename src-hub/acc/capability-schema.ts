/** Structural validation of one `x-agent-capability` block (ACC v1), with ajv. */
import { Ajv } from 'ajv';

const APPROVAL_OPS = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte', 'in', 'contains', 'exists'] as const;
/** BailingHub's capability schema writes rules as `{param, op, value, label}` with these operators. */
const BAILINGHUB_APPROVAL_OPS = ['>', '>=', '<', '<=', '==', '!=', 'in', 'contains', 'exists'] as const;
const RULE_LABEL = { type: 'string', minLength: 1, maxLength: 120 } as const;

export const CAPABILITY_SCHEMA = {
  type: 'object',
  required: ['version', 'enabled', 'scope'],
  properties: {
    version: { const: 1 },
    enabled: { type: 'boolean' },
    scope: { type: 'string', minLength: 1, maxLength: 200 },
    subject: { type: 'object', properties: { required: { type: 'boolean' } } },
    risk: { type: 'object', required: ['level'], properties: { level: { enum: ['low', 'medium', 'high'] } } },
    approval: {
      type: 'object',
      properties: {
        required: { type: 'boolean' },
        prompt: { type: 'string', maxLength: 2000 },
        when: {
          type: 'array',
          maxItems: 50,
          // Either format per rule: ours ({path, op: gt|...}) or BailingHub's ({param, op: >|...}).
          items: {
            oneOf: [
              {
                type: 'object',
                required: ['path', 'op'],
                properties: {
                  path: { type: 'string', minLength: 1, maxLength: 200 },
                  op: { enum: APPROVAL_OPS },
                  value: {},
                  label: RULE_LABEL,
                },
                additionalProperties: false,
              },
              {
                type: 'object',
                required: ['param', 'op'],
                properties: {
                  param: { type: 'string', minLength: 1, maxLength: 191 },
                  op: { enum: BAILINGHUB_APPROVAL_OPS },
                  value: {},
                  label: RULE_LABEL,
                },
                additionalProperties: false,
              },
            ],
          },
        },
      },
    },
    execution: {
      type: 'object',
      properties: {
        readonly: { type: 'boolean' },
        idempotent: { type: 'boolean' },
        timeout_ms: { type: 'integer', minimum: 1, maximum: 600000 },
        rate_limit: {
          type: 'object',
          required: ['count', 'window'],
          properties: {
            count: { type: 'integer', minimum: 1, maximum: 1000000 },
            window: { enum: ['1s', '1m', '1h', '1d'] },
          },
        },
      },
    },
    audit: { type: 'object', properties: { sensitive: { type: 'boolean' } } },
    outcome: {
      type: 'object',
      properties: {
        result: { type: 'string', maxLength: 2000 },
        side_effect: { enum: ['none', 'read', 'write', 'notify', 'external'] },
      },
    },
    guidance: { type: 'object' },
  },
} as const;

const ajv = new Ajv({ allErrors: false, strict: false });
const validate = ajv.compile(CAPABILITY_SCHEMA);

export interface CapabilityBlock {
  version: 1;
  enabled: boolean;
  scope: string;
  subject?: { required?: boolean };
  risk?: { level: 'low' | 'medium' | 'high' };
  approval?: {
    required?: boolean;
    prompt?: string;
    when?: Array<
      | { path: string; op: (typeof APPROVAL_OPS)[number]; value?: unknown; label?: string }
      | { param: string; op: (typeof BAILINGHUB_APPROVAL_OPS)[number]; value?: unknown; label?: string }
    >;
  };
  execution?: {
    readonly?: boolean;
    idempotent?: boolean;
    timeout_ms?: number;
    rate_limit?: { count: number; window: '1s' | '1m' | '1h' | '1d' };
  };
  audit?: { sensitive?: boolean };
  outcome?: { result?: string; side_effect?: 'none' | 'read' | 'write' | 'notify' | 'external' };
  guidance?: Record<string, unknown>;
}

export function checkCapability(
  block: unknown,
): { ok: true; block: CapabilityBlock } | { ok: false; message: string } {
  if (validate(block)) return { ok: true, block: block as CapabilityBlock };
  const e = validate.errors?.[0];
  const where = e?.instancePath
    ? `x-agent-capability${e.instancePath.replace(/\//g, '.')}`
    : 'x-agent-capability';
  return { ok: false, message: `${where} ${e?.message ?? 'is invalid'}` };
}
