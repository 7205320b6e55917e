/**
 * ACC approval.when[] rules over the flattened arguments: both formats a spec may use are compiled
 * to one form (`{path, op, value?, label?, match_absent?}`), checked against the input schema, and
 * evaluated here.
 *
 * - ours: `{path: '/price' | 'price' | 'a.b', op: eq|neq|gt|gte|lt|lte|in|contains|exists, value, label?}`
 * - BailingHub's: `{param: 'amount' | 'a.b', op: > >= < <= == != in contains exists, value, label?}`;
 *   `!=` also matches an absent argument there (compiled with `match_absent`), numeric operators
 *   compare numbers only, and the parameter must have a typed schema.
 * `contains`: an array argument containing an element equal to the value, or a string argument
 * containing the value as a substring.
 */
import { canonicalJson } from '../../src-shared/digest.js';
import type { ApprovalRule, CompiledOperation } from './types.js';

/** Splits a rule path: JSON pointer ('/a/b'), dotted ('a.b') or a plain argument name. */
export function rulePathSegments(path: string): string[] {
  if (path.startsWith('/')) {
    return path
      .slice(1)
      .split('/')
      .map((t) => t.replace(/~1/g, '/').replace(/~0/g, '~'));
  }
  return path.split('.');
}

const pointer = (segments: string[]) =>
  '/' + segments.map((s) => s.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

const BAILINGHUB_OPS: Readonly<Record<string, ApprovalRule['op']>> = {
  '>': 'gt',
  '>=': 'gte',
  '<': 'lt',
  '<=': 'lte',
  '==': 'eq',
  '!=': 'neq',
  in: 'in',
  contains: 'contains',
  exists: 'exists',
};

/** A rule as written in a spec, in either format (already structurally checked). */
export type WrittenRule =
  | { path: string; op: ApprovalRule['op']; value?: unknown; label?: string }
  | { param: string; op: string; value?: unknown; label?: string };

export interface NormalizedRule {
  rule: ApprovalRule;
  /** Written in BailingHub's format: its stricter type rules apply at compile time. */
  bailinghub: boolean;
}

export function normalizeRule(written: WrittenRule): NormalizedRule {
  const extra = written.label !== undefined ? { label: written.label } : {};
  const value = 'value' in written && written.value !== undefined ? { value: written.value } : {};
  if ('path' in written)
    return { rule: { path: written.path, op: written.op, ...value, ...extra }, bailinghub: false };
  const op = BAILINGHUB_OPS[written.op] ?? 'eq';
  const segments = written.param.split('.').filter((s) => s !== '');
  return {
    rule: {
      path: pointer(segments),
      op,
      ...value,
      ...extra,
      ...(written.op === '!=' ? { match_absent: true } : {}),
    },
    bailinghub: true,
  };
}

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The sub-schema a rule path points at, following `properties` and `items` (undefined when none). */
function schemaAt(inputSchema: Json, segments: string[]): Json | undefined {
  let cur: unknown = inputSchema;
  for (const seg of segments) {
    if (!isObject(cur)) return undefined;
    if (isObject(cur.properties) && Object.prototype.hasOwnProperty.call(cur.properties, seg))
      cur = cur.properties[seg];
    else if (/^\d+$/.test(seg) && isObject(cur.items)) cur = cur.items;
    else return undefined;
  }
  return isObject(cur) ? cur : undefined;
}

function schemaTypes(schema: Json | undefined): string[] {
  if (!schema) return [];
  const t = schema.type;
  if (typeof t === 'string') return [t];
  if (Array.isArray(t)) return t.filter((x): x is string => typeof x === 'string');
  if (Array.isArray(schema.enum) && schema.enum.length > 0)
    return [
      ...new Set(schema.enum.map((v) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v))),
    ];
  return [];
}

const NUMERIC = ['gt', 'gte', 'lt', 'lte'];

/** Why a compiled rule cannot be used with this input schema, or null. */
export function ruleProblem(normalized: NormalizedRule, inputSchema: Json): string | null {
  const { rule, bailinghub } = normalized;
  const segments = rulePathSegments(rule.path);
  const first = segments[0];
  const props = isObject(inputSchema.properties) ? inputSchema.properties : {};
  const name = bailinghub ? segments.join('.') : rule.path;
  if (!first || !Object.prototype.hasOwnProperty.call(props, first))
    return `approval.when ${bailinghub ? 'param' : 'path'} ${name} names no argument`;
  if (rule.op !== 'exists' && rule.value === undefined) return `approval.when ${rule.op} needs a value`;
  if (rule.op === 'in' && !Array.isArray(rule.value)) return 'approval.when in needs an array value';
  const target = schemaAt(inputSchema, segments);
  const types = schemaTypes(target);
  if (bailinghub && types.length === 0)
    return `approval.when param ${name} must have a typed schema (type or enum) in the operation`;
  if (NUMERIC.includes(rule.op)) {
    if (bailinghub) {
      if (typeof rule.value !== 'number' || !Number.isFinite(rule.value))
        return `approval.when ${rule.op} on ${name} needs a number value`;
      if (!types.includes('number') && !types.includes('integer'))
        return `approval.when ${rule.op} compares numbers, but ${name} is ${types.join('|')}`;
    } else if (typeof rule.value !== 'number' && typeof rule.value !== 'string') {
      return `approval.when ${rule.op} needs a number or string value`;
    }
  }
  if (rule.op === 'contains') {
    if (types.length > 0 && !types.includes('array') && !types.includes('string'))
      return `approval.when contains needs a string or array argument, but ${name} is ${types.join('|')}`;
    if (!types.includes('array') && types.includes('string') && typeof rule.value !== 'string')
      return `approval.when contains on the string ${name} needs a string value`;
  }
  return null;
}

function valueAt(args: Record<string, unknown>, path: string): unknown {
  let cur: unknown = args;
  for (const seg of rulePathSegments(path)) {
    if (cur === null || typeof cur !== 'object') return undefined;
    if (Array.isArray(cur)) {
      if (!/^\d+$/.test(seg)) return undefined;
      cur = cur[Number(seg)];
    } else {
      if (!Object.prototype.hasOwnProperty.call(cur, seg)) return undefined;
      cur = (cur as Record<string, unknown>)[seg];
    }
  }
  return cur;
}

const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

function compare(actual: unknown, expected: unknown): number | null {
  if (typeof actual === 'number' && typeof expected === 'number') return actual - expected;
  if (typeof actual === 'string' && typeof expected === 'string')
    return actual < expected ? -1 : actual > expected ? 1 : 0;
  return null;
}

export function ruleMatches(rule: ApprovalRule, args: Record<string, unknown>): boolean {
  const actual = valueAt(args, rule.path);
  switch (rule.op) {
    case 'exists':
      return actual !== undefined;
    case 'eq':
      return actual !== undefined && same(actual, rule.value);
    case 'neq':
      // Ours: an absent argument is not "different from" anything. BailingHub's `!=`: it is.
      if (actual === undefined) return rule.match_absent === true;
      return !same(actual, rule.value);
    case 'in':
      return actual !== undefined && Array.isArray(rule.value) && rule.value.some((v) => same(actual, v));
    case 'contains':
      if (Array.isArray(actual)) return actual.some((v) => same(v, rule.value));
      return typeof actual === 'string' && typeof rule.value === 'string' && actual.includes(rule.value);
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const c = compare(actual, rule.value);
      if (c === null) return false;
      return rule.op === 'gt' ? c > 0 : rule.op === 'gte' ? c >= 0 : rule.op === 'lt' ? c < 0 : c <= 0;
    }
  }
}

/** True when the call needs approval: approval.required (incl. risk high) or any matching `when` rule. */
export function approvalRequired(
  op: Pick<CompiledOperation, 'approval'>,
  args: Record<string, unknown>,
): boolean {
  return op.approval.required || op.approval.when.some((r) => ruleMatches(r, args));
}
