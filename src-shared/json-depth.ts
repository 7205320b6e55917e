/**
 * Nesting depth of JSON, measured without recursion, so hostile input (a body 100,000 levels deep
 * is 200 KB) is refused before any recursive code — JSON.stringify, a schema walk, a digest — sees
 * it. Depth counts containers: `1` and `{}` are 0 and 1 deep, `{"a":[1]}` is 2.
 */

/** Nesting limit of the Hub's request bodies (docs/hub-api.md) and of model tool-call arguments. */
export const MAX_REQUEST_JSON_DEPTH = 64;
/** Nesting limit of what business systems send (results, look-ups, specs): deeper is kept as text. */
export const MAX_BUSINESS_JSON_DEPTH = 256;

/** True when the JSON text nests arrays/objects deeper than `max` (strings are skipped correctly). */
export function jsonTextDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** True when a parsed value nests arrays/objects deeper than `max` (iterative; each node once). */
export function valueDeeperThan(value: unknown, max: number): boolean {
  const stack: Array<[unknown, number]> = [[value, 0]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (v === null || typeof v !== 'object') continue;
    if (d + 1 > max) return true;
    const children = Array.isArray(v) ? v : Object.values(v as Record<string, unknown>);
    for (const child of children) if (child !== null && typeof child === 'object') stack.push([child, d + 1]);
  }
  return false;
}
