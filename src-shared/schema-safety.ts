/**
 * JSON Schemas written by someone else (a business system's input schemas, a client's task
 * constraints) run inside the Hub and the host, so they run bounded:
 *
 * - every regular expression of a schema — `pattern`, `patternProperties`, the `regex` format —
 *   runs on RE2, whose matching time is linear in the input (no catastrophic backtracking);
 *   a pattern RE2 cannot compile (look-around, back-references, possessive quantifiers, ...)
 *   is refused where the schema enters, with a worded reason;
 * - a schema's size (JSON bytes), node count and nesting depth are bounded before ajv compiles it.
 *
 * See docs/hub-api.md ("Schemas and regular expressions").
 */
import type { Ajv } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types/index.js';
import RE2 from 're2';

/** ajv's `code.regExp`: ajv asks it for every `pattern` and `patternProperties` key. */
export const re2Engine: RegExpEngine = Object.assign(
  (pattern: string, flags: string) => new RE2(pattern, flags),
  {
    code: 'new RE2',
  },
);

/** The `regex` format answers "would this run here": whether RE2 compiles it. */
export function addRe2RegexFormat(ajv: Ajv): void {
  ajv.addFormat('regex', {
    type: 'string',
    validate: (s: string) => re2Problem(s) === null,
  });
}

/** Why RE2 cannot compile `pattern` (null when it can). */
export function re2Problem(pattern: string): string | null {
  try {
    new RE2(pattern, 'u');
    return null;
  } catch (err) {
    return (err as Error).message;
  }
}

export interface SchemaBudget {
  /** JSON text length of the whole schema. */
  maxBytes: number;
  /** Objects and arrays in the schema. */
  maxNodes: number;
  /** Nesting depth of objects and arrays. */
  maxDepth: number;
}

/** A business system's compiled input schema (one operation's arguments). */
export const DECLARATION_SCHEMA_BUDGET: SchemaBudget = {
  maxBytes: 256 * 1024,
  maxNodes: 5_000,
  maxDepth: 48,
};
/** One task constraint schema. */
export const CONSTRAINT_SCHEMA_BUDGET: SchemaBudget = { maxBytes: 32 * 1024, maxNodes: 1_000, maxDepth: 32 };

export type SchemaProblem =
  | { code: 'schema_too_large'; message: string }
  | { code: 'schema_too_deep'; message: string }
  | { code: 'pattern_unsupported'; message: string };

/** Keywords whose values are data, not schemas: a `pattern` inside them is not a regular expression. */
const DATA_KEYWORDS = new Set(['const', 'enum', 'default', 'examples', 'example']);

/**
 * Checks a schema against a budget and finds every pattern RE2 cannot run. Iterative, and it stops
 * at the first problem, so a hostile schema costs at most `maxNodes` steps.
 */
export function schemaProblem(schema: unknown, budget: SchemaBudget): SchemaProblem | null {
  let bytes: number;
  try {
    bytes = JSON.stringify(schema)?.length ?? 0;
  } catch {
    return { code: 'schema_too_deep', message: `the schema nests deeper than ${budget.maxDepth} levels` };
  }
  if (bytes > budget.maxBytes)
    return {
      code: 'schema_too_large',
      message: `the schema is ${bytes} bytes of JSON; at most ${budget.maxBytes} are allowed`,
    };
  let nodes = 0;
  const stack: Array<{ value: unknown; depth: number; path: string; data: boolean }> = [
    { value: schema, depth: 0, path: '', data: false },
  ];
  while (stack.length > 0) {
    const { value, depth, path, data } = stack.pop() as (typeof stack)[number];
    if (value === null || typeof value !== 'object') continue;
    if (++nodes > budget.maxNodes)
      return {
        code: 'schema_too_large',
        message: `the schema has more than ${budget.maxNodes} objects and arrays`,
      };
    if (depth + 1 > budget.maxDepth)
      return { code: 'schema_too_deep', message: `the schema nests deeper than ${budget.maxDepth} levels` };
    if (Array.isArray(value)) {
      value.forEach((v, i) => stack.push({ value: v, depth: depth + 1, path: `${path}/${i}`, data }));
      continue;
    }
    for (const [key, v] of Object.entries(value as Record<string, unknown>)) {
      const at = `${path}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (!data && key === 'pattern' && typeof v === 'string') {
        const why = re2Problem(v);
        if (why) return unsupported(at, v, why);
      }
      if (!data && key === 'patternProperties' && v !== null && typeof v === 'object' && !Array.isArray(v)) {
        for (const p of Object.keys(v)) {
          const why = re2Problem(p);
          if (why) return unsupported(at, p, why);
        }
      }
      stack.push({ value: v, depth: depth + 1, path: at, data: data || DATA_KEYWORDS.has(key) });
    }
  }
  return null;
}

function unsupported(at: string, pattern: string, why: string): SchemaProblem {
  const shown = pattern.length > 80 ? `${pattern.slice(0, 80)}…` : pattern;
  return {
    code: 'pattern_unsupported',
    message: `the regular expression ${JSON.stringify(shown)} at ${at} cannot run on the linear-time engine (RE2: ${why}); rewrite it without look-around, back-references or other backtracking-only features`,
  };
}
