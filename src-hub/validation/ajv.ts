/**
 * JSON Schema validation of things from outside: tool arguments against a declaration's input
 * schema, and task constraint schemas. Compiled validators are cached by a caller-chosen key.
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface SchemaValidator {
  /** Throws with a readable message when the schema itself is not valid JSON Schema. */
  compile(key: string, schema: Record<string, unknown>): ValidateFunction;
  validate(
    key: string,
    schema: Record<string, unknown>,
    data: unknown,
  ): { ok: true } | { ok: false; message: string };
}

export function createSchemaValidator(): SchemaValidator {
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: true, addUsedSchema: false });
  addFormats(ajv);
  const cache = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: Record<string, unknown>) => {
    let fn = cache.get(key);
    if (!fn) {
      fn = ajv.compile(schema);
      if (cache.size > 5000) cache.clear();
      cache.set(key, fn);
    }
    return fn;
  };
  return {
    compile,
    validate(key, schema, data) {
      const fn = compile(key, schema);
      if (fn(data)) return { ok: true };
      return { ok: false, message: ajv.errorsText(fn.errors, { dataVar: 'arguments' }) };
    },
  };
}
