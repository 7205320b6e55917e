/**
 * Request-body JSON Schemas for Fastify's ajv, derived from the zod wire contract
 * (src-shared/hub-api.ts) so the two cannot drift. Every object refuses unknown fields.
 */
import { z } from 'zod';
import {
  ApprovalDecisionRequestSchema,
  AttestRequestSchema,
  CreateAuthorizationRequestSchema,
  CreateClientRequestSchema,
  CreateRunRequestSchema,
  CreateTaskRequestSchema,
  GrantRequestSchema,
  InvokeRequestSchema,
  RegisterAnySystemRequestSchema,
  ToolOverlaySchema,
  ToolSearchRequestSchema,
} from '../../src-shared/hub-api.js';

type Json = Record<string, unknown>;

const KNOWN_FORMATS = new Set(['uri', 'date-time', 'email', 'uuid', 'date', 'time']);

function closeObjects(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(closeObjects);
  if (node === null || typeof node !== 'object') return node;
  const out: Json = {};
  for (const [k, v] of Object.entries(node as Json)) {
    if (k === '$schema') continue;
    // zod names some string checks as formats (starts_with, ...) and also emits a pattern: keep the pattern
    if (k === 'format' && typeof v === 'string' && !KNOWN_FORMATS.has(v)) continue;
    // property maps hold schemas keyed by field name: recurse into each value
    if (k === 'properties' && v && typeof v === 'object') {
      out[k] = Object.fromEntries(Object.entries(v as Json).map(([pk, pv]) => [pk, closeObjects(pv)]));
      continue;
    }
    out[k] = closeObjects(v);
  }
  if (out.type === 'object' && out.properties !== undefined && out.additionalProperties === undefined) {
    out.additionalProperties = false;
  }
  return out;
}

export function bodySchema(schema: z.ZodType): Json {
  return closeObjects(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' })) as Json;
}

export const EMPTY_BODY = {
  anyOf: [{ type: 'null' }, { type: 'object', properties: {}, additionalProperties: false }],
} as const;

export const bodies = {
  toolSearch: bodySchema(ToolSearchRequestSchema),
  createRun: bodySchema(CreateRunRequestSchema),
  invoke: bodySchema(InvokeRequestSchema),
  createTask: bodySchema(CreateTaskRequestSchema),
  registerSystem: bodySchema(RegisterAnySystemRequestSchema),
  toolOverlay: bodySchema(ToolOverlaySchema),
  createAuthorization: bodySchema(CreateAuthorizationRequestSchema),
  decision: bodySchema(ApprovalDecisionRequestSchema),
  createClient: bodySchema(CreateClientRequestSchema),
  grant: bodySchema(GrantRequestSchema),
  attest: bodySchema(AttestRequestSchema),
  rebind: {
    anyOf: [
      { type: 'null' },
      bodySchema(
        z.object({
          account: z.string().min(1).max(200).optional(),
          on_behalf_of: z.string().min(1).max(200).optional(),
        }),
      ),
    ],
  },
};

export const idParams = (name: string) => ({
  type: 'object',
  properties: { [name]: { type: 'string', minLength: 1, maxLength: 200 } },
  required: [name],
});
