/** ACC approval.when[] rules: `{path, op, value}` over the flattened arguments, and their evaluation. */
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
      // An absent argument is not "different from" anything: only a present, other value matches.
      return actual !== undefined && !same(actual, rule.value);
    case 'in':
      return actual !== undefined && Array.isArray(rule.value) && rule.value.some((v) => same(actual, v));
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

/** Why a rule cannot be used, or null. `argumentNames` are the operation's top-level argument names. */
export function ruleProblem(rule: ApprovalRule, argumentNames: readonly string[]): string | null {
  const first = rulePathSegments(rule.path)[0];
  if (!first || !argumentNames.includes(first)) return `approval.when path ${rule.path} names no argument`;
  if (
    ['gt', 'gte', 'lt', 'lte'].includes(rule.op) &&
    typeof rule.value !== 'number' &&
    typeof rule.value !== 'string'
  ) {
    return `approval.when ${rule.op} needs a number or string value`;
  }
  if (rule.op === 'in' && !Array.isArray(rule.value)) return 'approval.when in needs an array value';
  if ((rule.op === 'eq' || rule.op === 'neq') && rule.value === undefined)
    return `approval.when ${rule.op} needs a value`;
  return null;
}
