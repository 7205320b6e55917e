/** Resolves local JSON references (#/...) in an OpenAPI document by inlining them; external refs are refused. */

export class RefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefError';
  }
}

function decodePointerToken(t: string): string {
  return t.replace(/~1/g, '/').replace(/~0/g, '~');
}

export function resolvePointer(doc: unknown, ref: string): unknown {
  if (!ref.startsWith('#')) throw new RefError(`external reference ${ref} is not supported`);
  const pointer = ref.slice(1);
  if (pointer === '') return doc;
  if (!pointer.startsWith('/')) throw new RefError(`reference ${ref} is not a JSON pointer`);
  let cur: unknown = doc;
  for (const raw of pointer.slice(1).split('/')) {
    const token = decodePointerToken(decodeURIComponent(raw));
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, token)) {
      throw new RefError(`reference ${ref} does not resolve`);
    }
    cur = (cur as Record<string, unknown>)[token];
  }
  return cur;
}

const MAX_DEPTH = 64;

/** Returns a copy of `value` with every local $ref replaced by its (recursively resolved) target. */
export function inlineRefs(doc: unknown, value: unknown, seen: readonly string[] = [], depth = 0): unknown {
  if (depth > MAX_DEPTH) throw new RefError('schema nesting is too deep');
  if (Array.isArray(value)) return value.map((v) => inlineRefs(doc, v, seen, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    if (seen.includes(ref)) throw new RefError(`reference cycle through ${ref}`);
    const target = inlineRefs(doc, resolvePointer(doc, ref), [...seen, ref], depth + 1);
    const siblings = Object.fromEntries(Object.entries(obj).filter(([k]) => k !== '$ref'));
    if (Object.keys(siblings).length === 0) return target;
    if (target === null || typeof target !== 'object' || Array.isArray(target))
      throw new RefError(`reference ${ref} is not an object`);
    return {
      ...(target as Record<string, unknown>),
      ...(inlineRefs(doc, siblings, seen, depth + 1) as Record<string, unknown>),
    };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = inlineRefs(doc, v, seen, depth + 1);
  return out;
}
