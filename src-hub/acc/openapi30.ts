/**
 * OpenAPI 3.0 schema objects are not JSON Schema 2020-12: `nullable` and boolean
 * `exclusiveMinimum`/`exclusiveMaximum` are rewritten so the compiled input schema means the same.
 */

type Json = Record<string, unknown>;

export function normalizeOpenApi30Schema(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(normalizeOpenApi30Schema);
  if (value === null || typeof value !== 'object') return value;
  const src = value as Json;
  const out: Json = {};
  for (const [k, v] of Object.entries(src)) {
    // Keys whose values are maps of sub-schemas or single sub-schemas are walked; literals are kept as-is.
    if (k === 'enum' || k === 'const' || k === 'default' || k === 'example' || k === 'examples') out[k] = v;
    else out[k] = normalizeOpenApi30Schema(v);
  }
  if (out.nullable === true) {
    if (typeof out.type === 'string') out.type = [out.type, 'null'];
    if (Array.isArray(out.enum) && !out.enum.includes(null)) out.enum = [...out.enum, null];
  }
  delete out.nullable;
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof out[flag] === 'boolean') {
      if (out[flag] === true && typeof out[bound] === 'number') {
        out[flag] = out[bound];
        delete out[bound];
      } else {
        delete out[flag];
      }
    }
  }
  return out;
}
