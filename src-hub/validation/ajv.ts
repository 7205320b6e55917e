/**
 * JSON Schema validation of things from outside: tool arguments against a declaration's input
 * schema, and task constraint schemas. Compiled validators are cached by a caller-chosen key.
 * Every regular expression a schema carries (`pattern`, `patternProperties`, the `regex` format)
 * runs on RE2 (linear time), see src-shared/schema-safety.ts. A string format this ajv does not
 * check is accepted as an annotation (src-shared/schema-formats.ts).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { acceptUnknownFormats } from '../../src-shared/schema-formats.js';
import { addRe2RegexFormat, re2Engine } from '../../src-shared/schema-safety.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

export interface SchemaValidator {
  /** Throws with a readable message when the schema itself is not valid JSON Schema. */
  compile(key: string, schema: Record<string, unknown>): ValidateFunction;
  /** A schema that cannot be compiled (e.g. stored by an older Hub) is a refusal, never a crash. */
  validate(
    key: string,
    schema: Record<string, unknown>,
    data: unknown,
  ): { ok: true } | { ok: false; message: string };
}

export interface SchemaValidatorOptions {
  /** Called once per string format that is not checked (accepted as an annotation, see schema-formats.ts). */
  onUnknownFormat?: (format: string) => void;
}

export function createSchemaValidator(opts: SchemaValidatorOptions = {}): SchemaValidator {
  const ajv = new Ajv({
    strict: false,
    allErrors: true,
    validateSchema: true,
    addUsedSchema: false,
    code: { regExp: re2Engine },
  });
  addFormats(ajv);
  addRe2RegexFormat(ajv);
  const cache = new Map<string, ValidateFunction>();
  const compile = (key: string, schema: Record<string, unknown>) => {
    let fn = cache.get(key);
    if (!fn) {
      acceptUnknownFormats(ajv, schema, opts.onUnknownFormat);
      fn = ajv.compile(schema);
      if (cache.size > 5000) cache.clear();
      cache.set(key, fn);
    }
    return fn;
  };
  return {
    compile,
    validate(key, schema, data) {
      let fn: ValidateFunction;
      try {
        fn = compile(key, schema);
      } catch (err) {
        return { ok: false, message: `the schema cannot be checked here: ${(err as Error).message}` };
      }
      if (fn(data)) return { ok: true };
      return { ok: false, message: ajv.errorsText(fn.errors, { dataVar: 'arguments' }) };
    },
  };
}
