/**
 * String `format`s in a business system's schemas. The formats ajv-formats checks are validated;
 * any other (`phone`, `sku`, ...) is accepted as an annotation: it stays in the schema the model
 * sees, is never checked, and is reported once — never as an ajv warning on stderr.
 * See docs/business-systems.md ("Systems built for BailingHub").
 */
import type { Ajv } from 'ajv';
import { fullFormats } from 'ajv-formats/dist/formats.js';

/** Formats the Hub and the desk check (ajv-formats' full set, `regex` on RE2). */
export const CHECKED_FORMATS: ReadonlySet<string> = new Set(Object.keys(fullFormats));

/** Keywords whose values are data, not schemas: a `format` inside them is not a format. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/** The format names a schema uses that are not checked here (sorted, each once). Iterative and bounded. */
export function unknownFormats(schema: unknown, maxNodes = 20_000): string[] {
  const found = new Set<string>();
  const stack: unknown[] = [schema];
  let seen = 0;
  while (stack.length > 0 && seen < maxNodes) {
    const node = stack.pop();
    seen += 1;
    if (Array.isArray(node)) {
      for (const v of node) if (v !== null && typeof v === 'object') stack.push(v);
      continue;
    }
    if (node === null || typeof node !== 'object') continue;
    for (const [k, v] of Object.entries(node as Record<string, unknown>)) {
      if (k === 'format' && typeof v === 'string' && !CHECKED_FORMATS.has(v)) found.add(v);
      else if (!DATA_KEYWORDS.has(k) && v !== null && typeof v === 'object') stack.push(v);
    }
  }
  return [...found].sort();
}

/**
 * Registers every format of `schema` this ajv does not know as an annotation (always valid), so
 * ajv neither warns nor fails on it; `onNew` is called once per name newly registered.
 */
export function acceptUnknownFormats(ajv: Ajv, schema: unknown, onNew?: (format: string) => void): void {
  for (const name of unknownFormats(schema)) {
    if (ajv.formats[name] !== undefined) continue;
    ajv.addFormat(name, true);
    onNew?.(name);
  }
}
