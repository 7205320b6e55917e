/**
 * Validates model-supplied arguments against a declaration's FULL input schema (ajv, all errors;
 * regular expressions on RE2, nesting bounded) before anything is sent, and refuses arguments
 * that try to pick a target themselves.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { Declaration } from '../../src-shared/hub-api.js';
import { MAX_REQUEST_JSON_DEPTH, valueDeeperThan } from '../../src-shared/json-depth.js';
import { acceptUnknownFormats } from '../../src-shared/schema-formats.js';
import { addRe2RegexFormat, re2Engine } from '../../src-shared/schema-safety.js';

// ajv-formats is CommonJS; under NodeNext its default export arrives as the module namespace.
const addFormats = ((addFormatsModule as unknown as { default?: unknown }).default ?? addFormatsModule) as (
  ajv: Ajv,
) => Ajv;

export interface ArgumentCheck {
  ok: boolean;
  errors: string[];
}

/** Argument names that would select a system, account, Hub or authorization instead of the cache. */
const TARGET_KEYS = new Set([
  'authorization_ref',
  'authorization',
  'authorization_revision',
  'hub',
  'hub_id',
  'hub_url',
  'system',
  'system_id',
  'account',
  'account_id',
  'base_url',
  'target',
  'run_id',
  'invocation_id',
  'declaration_revision',
]);

export function createArgumentValidator() {
  // Patterns in a declaration's schema come from a business system: they run on RE2 (linear time).
  const ajv = new Ajv({ allErrors: true, strict: false, validateFormats: true, code: { regExp: re2Engine } });
  addFormats(ajv);
  addRe2RegexFormat(ajv);
  const compiled = new Map<string, ValidateFunction | Error>();

  function validatorFor(key: string, schema: Record<string, unknown>): ValidateFunction | Error {
    let v = compiled.get(key);
    if (!v) {
      try {
        acceptUnknownFormats(ajv, schema); // e.g. `phone`: an annotation for the model, never checked
        v = ajv.compile(schema);
      } catch (err) {
        v = err instanceof Error ? err : new Error(String(err));
      }
      compiled.set(key, v);
    }
    return v;
  }

  return {
    /** Plain JSON-schema check (built-in functions). */
    checkPlain(key: string, schema: Record<string, unknown> | object, args: unknown): ArgumentCheck {
      if (valueDeeperThan(args, MAX_REQUEST_JSON_DEPTH))
        return { ok: false, errors: [`arguments nest deeper than ${MAX_REQUEST_JSON_DEPTH} levels`] };
      const v = validatorFor(key, schema as Record<string, unknown>);
      if (v instanceof Error) return { ok: false, errors: [v.message] };
      if (v(args)) return { ok: true, errors: [] };
      return {
        ok: false,
        errors: (v.errors ?? []).map((e) => `${e.instancePath || '/'} ${e.message ?? 'is invalid'}`),
      };
    },
    /** `foreignTargets`: refs, system ids and accounts of OTHER scope members and other Hubs, refused as values. */
    check(
      key: string,
      declaration: Declaration,
      args: unknown,
      foreignTargets: readonly string[] = [],
    ): ArgumentCheck {
      if (args === null || typeof args !== 'object' || Array.isArray(args))
        return { ok: false, errors: ['arguments must be a JSON object'] };
      // before any recursive walk (the target checks below, ajv, the digest)
      if (valueDeeperThan(args, MAX_REQUEST_JSON_DEPTH))
        return { ok: false, errors: [`arguments nest deeper than ${MAX_REQUEST_JSON_DEPTH} levels`] };
      const targetErrors = [
        ...targetOverrides(declaration, args as Record<string, unknown>),
        ...foreignMentions(
          undeclaredPart(declaration, args as Record<string, unknown>),
          new Set(foreignTargets.filter((t) => t.length > 0)),
        ),
      ];
      if (targetErrors.length > 0) return { ok: false, errors: targetErrors };
      const v = validatorFor(key, declaration.input_schema);
      if (v instanceof Error)
        return { ok: false, errors: [`the declaration's schema cannot be compiled: ${v.message}`] };
      if (v(args)) return { ok: true, errors: [] };
      return {
        ok: false,
        errors: (v.errors ?? []).map(
          (e) =>
            `${e.instancePath || '/'} ${e.message ?? 'is invalid'}${e.params && 'additionalProperty' in e.params ? ` (${String(e.params.additionalProperty)})` : ''}`,
        ),
      };
    },
  };
}

/** Keys that select a target are refused unless the declaration's own schema defines them as business fields. */
function targetOverrides(declaration: Declaration, args: Record<string, unknown>): string[] {
  const props = declaration.input_schema.properties;
  const declared =
    props && typeof props === 'object'
      ? new Set(Object.keys(props as Record<string, unknown>))
      : new Set<string>();
  const errors: string[] = [];
  for (const key of Object.keys(args)) {
    if (TARGET_KEYS.has(key) && !declared.has(key)) {
      errors.push(
        `/${key} selects a target; targets come only from the loaded declaration (${declaration.system_name}, account ${declaration.account}), never from arguments`,
      );
    }
  }
  return errors;
}

export type ArgumentValidator = ReturnType<typeof createArgumentValidator>;

/**
 * Fields the declaration's schema does not define. Declared business fields may legitimately name
 * another system (e.g. inventory's find_sku takes the shop id as its explicit mapping basis); the
 * target itself never comes from arguments.
 */
function undeclaredPart(declaration: Declaration, args: Record<string, unknown>): Record<string, unknown> {
  const props = declaration.input_schema.properties;
  const declared =
    props && typeof props === 'object'
      ? new Set(Object.keys(props as Record<string, unknown>))
      : new Set<string>();
  return Object.fromEntries(Object.entries(args).filter(([k]) => !declared.has(k)));
}

/** String values that exactly name another system, account, authorization or Hub of the session. */
function foreignMentions(args: unknown, foreign: ReadonlySet<string>, path = ''): string[] {
  if (foreign.size === 0) return [];
  if (typeof args === 'string')
    return foreign.has(args)
      ? [
          `${path || '/'} names "${args}", which is another system, account or Hub; the target comes only from the loaded declaration`,
        ]
      : [];
  if (Array.isArray(args)) return args.flatMap((v, i) => foreignMentions(v, foreign, `${path}/${i}`));
  if (args && typeof args === 'object')
    return Object.entries(args as Record<string, unknown>).flatMap(([k, v]) =>
      foreignMentions(v, foreign, `${path}/${k}`),
    );
  return [];
}
