/**
 * ACC v1 compiler (pure, no I/O): an OpenAPI 3.x document with `x-agent-capability` blocks becomes
 * compiled operations plus coded diagnostics. Operations that cannot be compiled are left out.
 *
 * Diagnostic codes: spec_invalid (the document as a whole; zero operations), capability_missing,
 * acc_version_unsupported, capability_invalid, operation_id_missing, operation_id_invalid,
 * operation_id_duplicate, schema_unresolvable, schema_invalid, parameter_unsupported,
 * path_template_mismatch, body_unsupported, argument_name_collision, pattern_unsupported (a regular
 * expression RE2 cannot run), schema_too_large, schema_too_deep (src-shared/schema-safety.ts),
 * operation_deprecated (OpenAPI `deprecated: true`: not offered). One diagnostic leaves nothing out:
 * format_unknown (a string format the Hub does not check, kept as an annotation).
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { SpecDiagnostic } from '../../src-shared/hub-api.js';
import { DECLARATION_SCHEMA_BUDGET, re2Engine, schemaProblem } from '../../src-shared/schema-safety.js';
import { unknownFormats } from '../../src-shared/schema-formats.js';
import { normalizeRule, ruleProblem } from './approval.js';
import { checkCapability } from './capability-schema.js';
import { executionTraits } from './execution.js';
import { normalizeOpenApi30Schema } from './openapi30.js';
import { inlineRefs, RefBudgetError, refBudget, RefError, resolvePointer, type RefBudget } from './refs.js';
import {
  DEFAULT_TIMEOUT_MS,
  type CompiledOperation,
  type HttpOperation,
  type McpOperation,
} from './types.js';

export interface CompileResult {
  operations: HttpOperation[];
  diagnostics: SpecDiagnostic[];
  /** sha256 hex of the canonical JSON of the whole document. */
  spec_revision: string;
}

const METHODS = ['get', 'head', 'put', 'post', 'patch', 'delete'] as const;
const OPERATION_ID = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

class OperationError extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

// Patterns compile on RE2, as they will run (src-shared/schema-safety.ts).
const schemaChecker = new Ajv2020({
  strict: false,
  allErrors: false,
  validateFormats: false,
  code: { regExp: re2Engine },
});

/** sha256 hex of the canonical JSON of a compiled operation without its revision. */
export function declarationRevision(
  op: Omit<HttpOperation, 'declaration_revision'> | Omit<McpOperation, 'declaration_revision'>,
): string {
  const { declaration_revision: _ignored, ...rest } = op as CompiledOperation;
  return sha256Hex(canonicalJson(rest));
}

function resolveObject(doc: unknown, value: unknown, what: string, budget: RefBudget): Json {
  let resolved: unknown;
  try {
    resolved = inlineRefs(doc, value, budget);
  } catch (err) {
    if (err instanceof RefBudgetError) throw err; // the whole document is refused
    throw new OperationError('schema_unresolvable', `${what}: ${(err as Error).message}`);
  }
  if (!isObject(resolved)) throw new OperationError('schema_unresolvable', `${what} is not an object`);
  return resolved;
}

interface ParamInfo {
  name: string;
  in: 'path' | 'query';
  required: boolean;
  schema: Json;
}

function collectParameters(doc: unknown, pathItem: Json, operation: Json, budget: RefBudget): ParamInfo[] {
  const raw = [
    ...(Array.isArray(pathItem.parameters) ? pathItem.parameters : []),
    ...(Array.isArray(operation.parameters) ? operation.parameters : []),
  ];
  if (pathItem.parameters !== undefined && !Array.isArray(pathItem.parameters)) {
    throw new OperationError('schema_invalid', 'path-level parameters must be an array');
  }
  if (operation.parameters !== undefined && !Array.isArray(operation.parameters)) {
    throw new OperationError('schema_invalid', 'parameters must be an array');
  }
  // Operation-level parameters override path-level ones with the same (name, in).
  const byKey = new Map<string, ParamInfo>();
  for (const entry of raw) {
    const p = resolveObject(doc, entry, 'parameter', budget);
    if (typeof p.name !== 'string' || p.name === '' || typeof p.in !== 'string') {
      throw new OperationError('schema_invalid', 'a parameter has no name or location');
    }
    if (p.in === 'header' || p.in === 'cookie') {
      if (p.required === true) {
        throw new OperationError(
          'parameter_unsupported',
          `required ${p.in} parameter ${p.name} cannot be supplied by the Hub`,
        );
      }
      continue; // optional header/cookie parameters are not part of the tool's arguments
    }
    if (p.in !== 'path' && p.in !== 'query')
      throw new OperationError('schema_invalid', `parameter ${p.name} has an unknown location ${p.in}`);
    let schema: Json = isObject(p.schema) ? { ...p.schema } : { type: 'string' };
    if (p.schema !== undefined && !isObject(p.schema))
      throw new OperationError('schema_invalid', `parameter ${p.name} has an invalid schema`);
    if (typeof p.description === 'string' && schema.description === undefined)
      schema = { ...schema, description: p.description };
    byKey.set(`${p.in}:${p.name}`, {
      name: p.name,
      in: p.in,
      required: p.in === 'path' ? true : p.required === true,
      schema,
    });
  }
  return [...byKey.values()];
}

function collectBody(
  doc: unknown,
  operation: Json,
  budget: RefBudget,
): { schema: Json; required: boolean } | null {
  if (operation.requestBody === undefined) return null;
  const body = resolveObject(doc, operation.requestBody, 'requestBody', budget);
  const content = body.content;
  if (!isObject(content)) throw new OperationError('body_unsupported', 'requestBody has no content');
  const jsonType = Object.keys(content).find(
    (t) => t === 'application/json' || /^application\/[\w.+-]*json$/.test(t),
  );
  if (!jsonType) throw new OperationError('body_unsupported', 'requestBody is not application/json');
  const media = content[jsonType];
  if (!isObject(media) || !isObject(media.schema))
    throw new OperationError('body_unsupported', 'requestBody has no JSON schema');
  const schema = media.schema as Json;
  const typeOk = schema.type === 'object' || (schema.type === undefined && isObject(schema.properties));
  if (!typeOk || (schema.properties !== undefined && !isObject(schema.properties))) {
    throw new OperationError('body_unsupported', 'requestBody schema must be an object with properties');
  }
  return { schema, required: body.required === true };
}

function compileOperation(
  doc: unknown,
  path: string,
  method: string,
  pathItem: Json,
  operation: Json,
  capabilityRaw: unknown,
  budget: RefBudget,
): HttpOperation {
  const capCheck = checkCapability(capabilityRaw);
  if (!capCheck.ok) throw new OperationError('capability_invalid', capCheck.message);
  const cap = capCheck.block;

  const params = collectParameters(doc, pathItem, operation, budget);
  const templateNames = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] ?? '');
  const pathParams = params.filter((p) => p.in === 'path');
  for (const name of templateNames) {
    if (!pathParams.some((p) => p.name === name))
      throw new OperationError('path_template_mismatch', `path parameter {${name}} is not declared`);
  }
  for (const p of pathParams) {
    if (!templateNames.includes(p.name))
      throw new OperationError(
        'path_template_mismatch',
        `path parameter ${p.name} is not in the path ${path}`,
      );
  }
  const body = collectBody(doc, operation, budget);

  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const add = (name: string, schema: unknown, isRequired: boolean) => {
    if (Object.prototype.hasOwnProperty.call(properties, name)) {
      throw new OperationError(
        'argument_name_collision',
        `argument name ${name} is used more than once (path, query and body are flattened)`,
      );
    }
    properties[name] = schema;
    if (isRequired) required.push(name);
  };
  for (const p of params) add(p.name, p.schema, p.required);
  // Sorted: object key order carries no meaning, so it must not change the revision.
  const bodyProps =
    body && isObject(body.schema.properties) ? Object.keys(body.schema.properties).sort() : [];
  const bodyRequired =
    body && Array.isArray(body.schema.required)
      ? body.schema.required.filter((x): x is string => typeof x === 'string')
      : [];
  // A property the body schema lists as required is required, whether or not requestBody.required
  // is set (BailingHub's SDKs put `required` only inside the schema).
  for (const name of bodyProps)
    add(name, (body?.schema.properties as Json)[name], bodyRequired.includes(name));

  for (const p of params) {
    const t = p.schema.type;
    const types = Array.isArray(t) ? t : [t];
    if (types.includes('object') || (p.in === 'path' && types.includes('array'))) {
      throw new OperationError(
        'parameter_unsupported',
        `${p.in} parameter ${p.name} must be a scalar${p.in === 'query' ? ' or an array of scalars' : ''}`,
      );
    }
  }
  const isOpenApi30 =
    typeof (doc as Json).openapi === 'string' && ((doc as Json).openapi as string).startsWith('3.0');
  const finalProperties = isOpenApi30 ? (normalizeOpenApi30Schema(properties) as Json) : properties;
  const input_schema: Json = {
    type: 'object',
    properties: finalProperties,
    required: [...required].sort(),
    additionalProperties: false,
  };
  const problem = schemaProblem(input_schema, DECLARATION_SCHEMA_BUDGET);
  if (problem) throw new OperationError(problem.code, `input schema refused: ${problem.message}`);
  try {
    schemaChecker.compile(input_schema);
  } catch (err) {
    throw new OperationError('schema_invalid', `input schema does not compile: ${(err as Error).message}`);
  }

  const when = (cap.approval?.when ?? []).map(normalizeRule);
  for (const rule of when) {
    const problem = ruleProblem(rule, input_schema);
    if (problem) throw new OperationError('capability_invalid', problem);
  }

  const traits = executionTraits(method, cap);
  const risk = cap.risk?.level ?? 'low';
  const summary = typeof operation.summary === 'string' ? operation.summary.trim() : '';
  const longText = typeof operation.description === 'string' ? operation.description.trim() : '';
  const description = longText || summary;

  const compiled: Omit<HttpOperation, 'declaration_revision'> = {
    tool: operation.operationId as string,
    description,
    method: method.toUpperCase(),
    path_template: path,
    path_params: pathParams.map((p) => p.name),
    query_params: params.filter((p) => p.in === 'query').map((p) => p.name),
    body_params: bodyProps,
    has_body: body !== null,
    body_required: body !== null && (body.required || bodyRequired.length > 0),
    input_schema,
    effect: traits.effect,
    declared_readonly: traits.readonly,
    side_effect: traits.side_effect,
    risk_level: risk,
    approval: {
      required: cap.approval?.required === true || risk === 'high',
      prompt: cap.approval?.prompt ?? null,
      when: when.map((r) => r.rule),
    },
    idempotent: traits.idempotent,
    timeout_ms: cap.execution?.timeout_ms ?? DEFAULT_TIMEOUT_MS,
    rate_limit: cap.execution?.rate_limit
      ? { count: cap.execution.rate_limit.count, window: cap.execution.rate_limit.window }
      : null,
    scope: cap.scope,
    subject_required: cap.subject?.required === true,
    audit_sensitive: cap.audit?.sensitive === true,
    guidance: cap.guidance ?? null,
  };
  return { ...compiled, declaration_revision: declarationRevision(compiled) };
}

export function compileSpec(doc: unknown): CompileResult {
  const spec_revision = sha256Hex(canonicalJson(doc ?? null));
  const invalid = (message: string): CompileResult => ({
    operations: [],
    diagnostics: [{ code: 'spec_invalid', operation: null, message }],
    spec_revision,
  });
  if (!isObject(doc)) return invalid('the document is not a JSON object');
  if (typeof doc.openapi !== 'string' || !/^3\.\d+(\.\d+)?/.test(doc.openapi)) {
    return invalid('the document is not OpenAPI 3.x (missing or unsupported "openapi" field)');
  }
  if (!isObject(doc.paths)) return invalid('the document has no "paths" object');

  const operations: HttpOperation[] = [];
  const diagnostics: SpecDiagnostic[] = [];
  const seenIds = new Set<string>();
  const budget = refBudget(); // one for the whole document, so many operations cannot multiply it

  for (const [path, pathItemRaw] of Object.entries(doc.paths)) {
    if (!path.startsWith('/')) {
      diagnostics.push({
        code: 'schema_invalid',
        operation: null,
        message: `path ${path} does not start with /`,
      });
      continue;
    }
    // Only the path item's own $ref is followed here; schemas inside operations are resolved per operation.
    let pathItem: unknown = pathItemRaw;
    try {
      if (isObject(pathItemRaw) && typeof pathItemRaw.$ref === 'string')
        pathItem = resolvePointer(doc, pathItemRaw.$ref);
    } catch (err) {
      diagnostics.push({
        code: 'schema_unresolvable',
        operation: null,
        message: `path item ${path}: ${(err as Error).message}`,
      });
      continue;
    }
    if (!isObject(pathItem)) {
      diagnostics.push({
        code: 'schema_invalid',
        operation: null,
        message: `path item ${path} is not an object`,
      });
      continue;
    }
    for (const method of METHODS) {
      const operation = pathItem[method];
      if (operation === undefined) continue;
      const where = `${method.toUpperCase()} ${path}`;
      if (!isObject(operation)) {
        diagnostics.push({ code: 'schema_invalid', operation: null, message: `${where} is not an object` });
        continue;
      }
      const id = typeof operation.operationId === 'string' ? operation.operationId : null;
      const capability = operation['x-agent-capability'];
      if (capability === undefined) {
        diagnostics.push({
          code: 'capability_missing',
          operation: id,
          message: `${where} has no x-agent-capability; not exposed`,
        });
        continue;
      }
      if (!isObject(capability)) {
        diagnostics.push({
          code: 'capability_invalid',
          operation: id,
          message: `${where}: x-agent-capability is not an object`,
        });
        continue;
      }
      if (capability.version !== 1) {
        diagnostics.push({
          code: 'acc_version_unsupported',
          operation: id,
          message: `${where}: x-agent-capability version ${JSON.stringify(capability.version ?? null)} is not supported (only 1)`,
        });
        continue;
      }
      if (capability.enabled === false) continue; // disabled on purpose: not a problem, not exposed
      if (operation.deprecated === true) {
        // Being retired by the business system: not offered to agents (as BailingHub does).
        diagnostics.push({
          code: 'operation_deprecated',
          operation: id,
          message: `${where} is deprecated; not offered to agents`,
        });
        continue;
      }
      if (id === null || id === '') {
        diagnostics.push({
          code: 'operation_id_missing',
          operation: null,
          message: `${where} has no operationId`,
        });
        continue;
      }
      if (!OPERATION_ID.test(id)) {
        diagnostics.push({
          code: 'operation_id_invalid',
          operation: id,
          message: `${where}: operationId must match ${OPERATION_ID.source}`,
        });
        continue;
      }
      if (seenIds.has(id)) {
        diagnostics.push({
          code: 'operation_id_duplicate',
          operation: id,
          message: `${where}: operationId ${id} is used twice; later one left out`,
        });
        continue;
      }
      seenIds.add(id);
      try {
        const compiled = compileOperation(doc, path, method, pathItem, operation, capability, budget);
        operations.push(compiled);
        const formats = unknownFormats(compiled.input_schema);
        if (formats.length > 0)
          diagnostics.push({
            code: 'format_unknown',
            operation: id,
            message: `${where}: format ${formats.join(', ')} is not checked by the Hub; kept as an annotation (the operation is offered)`,
          });
      } catch (err) {
        if (err instanceof RefBudgetError)
          return invalid(`the document is refused at ${where}: ${err.message}`);
        if (err instanceof OperationError) {
          diagnostics.push({ code: err.code, operation: id, message: `${where}: ${err.message}` });
        } else if (err instanceof RefError) {
          diagnostics.push({
            code: 'schema_unresolvable',
            operation: id,
            message: `${where}: ${err.message}`,
          });
        } else {
          diagnostics.push({
            code: 'schema_invalid',
            operation: id,
            message: `${where}: ${(err as Error).message}`,
          });
        }
      }
    }
  }
  return { operations, diagnostics, spec_revision };
}
