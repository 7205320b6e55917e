/**
 * Resolves local JSON references (#/...) in an OpenAPI document by inlining them; external refs
 * are refused. Inlining is bounded: what an inlining would produce is measured on the document's
 * reference graph first (cheap, nothing built), so a small document whose references fan out (a
 * "$ref bomb": 10 KB that would expand to gigabytes) exhausts its RefBudget — nodes and bytes for
 * the whole document — and is refused with a RefBudgetError before it costs memory or time.
 */

export class RefError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RefError';
  }
}

/** The document's inlined schemas would be larger than its budget: the whole spec is refused. */
export class RefBudgetError extends RefError {
  constructor(message: string) {
    super(message);
    this.name = 'RefBudgetError';
  }
}

/** What inlining may still produce for one document (decremented as it goes). */
export interface RefBudget {
  nodes: number;
  bytes: number;
  readonly limits: { nodes: number; bytes: number };
}

export const REF_BUDGET_LIMITS = { nodes: 50_000, bytes: 2 * 1024 * 1024 };

export function refBudget(limits: { nodes: number; bytes: number } = REF_BUDGET_LIMITS): RefBudget {
  return { nodes: limits.nodes, bytes: limits.bytes, limits };
}

function spend(budget: RefBudget, nodes: number, bytes: number): void {
  budget.nodes -= nodes;
  budget.bytes -= bytes;
  if (budget.nodes < 0 || budget.bytes < 0) {
    throw new RefBudgetError(
      `its schemas expand past ${budget.limits.nodes} nodes or ${budget.limits.bytes} bytes once their $refs are inlined`,
    );
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
    let token: string;
    try {
      token = decodePointerToken(decodeURIComponent(raw));
    } catch {
      throw new RefError(`reference ${ref} is not a valid JSON pointer`);
    }
    if (cur === null || typeof cur !== 'object' || !Object.prototype.hasOwnProperty.call(cur, token)) {
      throw new RefError(`reference ${ref} does not resolve`);
    }
    cur = (cur as Record<string, unknown>)[token];
  }
  return cur;
}

const MAX_DEPTH = 64;

interface Size {
  nodes: number;
  bytes: number;
  /** Nesting depth of the expansion below (and including) this value. */
  height: number;
}
const SCALAR: Size = { nodes: 0, bytes: 0, height: 0 };

/** Expanded sizes of a document's values, computed once per value (a DAG, not the exploded tree). */
const sizeMemos = new WeakMap<object, Map<object, Size>>();

/**
 * What inlining `value` would produce — nodes, bytes, depth — computed from the document's
 * reference graph without building anything: a bomb that would expand to 4^9 nodes costs a few
 * dozen steps here. Throws RefError on cycles and unresolvable references.
 */
function expandedSize(doc: object, value: unknown, memo: Map<object, Size>, onStack: Set<object>): Size {
  if (typeof value === 'string') return { nodes: 0, bytes: value.length, height: 0 };
  if (value === null || typeof value !== 'object') return SCALAR;
  const known = memo.get(value);
  if (known) return known;
  if (onStack.has(value)) throw new RefError('reference cycle');
  if (onStack.size > MAX_DEPTH * 4) throw new RefError('schema nesting is too deep');
  onStack.add(value);
  const size: Size = { nodes: 1, bytes: 0, height: 1 };
  const add = (s: Size) => {
    size.nodes += s.nodes;
    size.bytes += s.bytes;
    size.height = Math.max(size.height, s.height + 1);
  };
  if (Array.isArray(value)) {
    for (const v of value) add(expandedSize(doc, v, memo, onStack));
  } else {
    const obj = value as Record<string, unknown>;
    if (typeof obj.$ref === 'string') {
      const target = resolvePointer(doc, obj.$ref);
      if (target !== null && typeof target === 'object' && onStack.has(target))
        throw new RefError(`reference cycle through ${obj.$ref}`);
      const t = expandedSize(doc, target, memo, onStack);
      // the reference is replaced by its target (merged with any siblings): same level, not one deeper
      size.nodes += t.nodes;
      size.bytes += t.bytes;
      size.height = Math.max(size.height, t.height);
    }
    for (const [k, v] of Object.entries(obj)) {
      if (k === '$ref') continue;
      size.bytes += k.length;
      add(expandedSize(doc, v, memo, onStack));
    }
  }
  onStack.delete(value);
  memo.set(value, size);
  return size;
}

/**
 * Returns a copy of `value` with every local $ref replaced by its (recursively resolved) target.
 * What it would produce is measured first (expandedSize) and spent from `budget` — share one
 * budget across a document — so an expansion past the budget is refused before it is built.
 */
export function inlineRefs(doc: unknown, value: unknown, budget: RefBudget = refBudget()): unknown {
  if (doc !== null && typeof doc === 'object') {
    let memo = sizeMemos.get(doc);
    if (!memo) sizeMemos.set(doc, (memo = new Map()));
    const size = expandedSize(doc, value, memo, new Set());
    if (size.height > MAX_DEPTH) throw new RefError('schema nesting is too deep');
    spend(budget, size.nodes, size.bytes);
  }
  return build(doc, value, [], 0);
}

function build(doc: unknown, value: unknown, seen: readonly string[], depth: number): unknown {
  if (depth > MAX_DEPTH) throw new RefError('schema nesting is too deep');
  if (Array.isArray(value)) return value.map((v) => build(doc, v, seen, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const obj = value as Record<string, unknown>;
  if (typeof obj.$ref === 'string') {
    const ref = obj.$ref;
    if (seen.includes(ref)) throw new RefError(`reference cycle through ${ref}`);
    const target = build(doc, resolvePointer(doc, ref), [...seen, ref], depth + 1);
    const siblings = Object.fromEntries(Object.entries(obj).filter(([k]) => k !== '$ref'));
    if (Object.keys(siblings).length === 0) return target;
    if (target === null || typeof target !== 'object' || Array.isArray(target))
      throw new RefError(`reference ${ref} is not an object`);
    return {
      ...(target as Record<string, unknown>),
      ...(build(doc, siblings, seen, depth + 1) as Record<string, unknown>),
    };
  }
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(obj)) out[k] = build(doc, v, seen, depth + 1);
  return out;
}
