/** Input validation of one demo operation (path and query coerced, body strict), with ajv. */
import { Ajv, type ValidateFunction } from 'ajv';
import type { DemoOperationDef, JsonSchema, ParamDef } from './operation.js';

export interface OperationValidators {
  params: ValidateFunction;
  query: ValidateFunction;
  body: ValidateFunction | null;
}

const coercing = new Ajv({ allErrors: false, coerceTypes: true, strict: false, useDefaults: true });
const strictAjv = new Ajv({ allErrors: false, coerceTypes: false, strict: false });

function objectOf(params: ParamDef[]): JsonSchema {
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema])),
    required: params.filter((p) => p.required).map((p) => p.name),
    additionalProperties: false,
  };
}

export function compileValidators(op: DemoOperationDef): OperationValidators {
  return {
    params: coercing.compile(objectOf(op.pathParams)),
    query: coercing.compile(objectOf(op.queryParams)),
    body: op.body ? strictAjv.compile(op.body.schema) : null,
  };
}

export function describeErrors(where: string, v: ValidateFunction): string {
  const e = v.errors?.[0];
  if (!e) return `${where} is invalid`;
  const at = e.instancePath ? `${where}${e.instancePath.replace(/\//g, '.')}` : where;
  const extra =
    e.keyword === 'additionalProperties'
      ? ` (${String((e.params as { additionalProperty?: string }).additionalProperty)})`
      : '';
  return `${at} ${e.message ?? 'is invalid'}${extra}`;
}
