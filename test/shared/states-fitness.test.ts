// Fitness test: every vocabulary of states lives once, in src-shared/states.ts
// (docs/design.md#vocabulary). Product code elsewhere may use single names (`state === 'paused'`)
// but never declares its own set of them: an array, a Set, a z.enum or a union type that lists two
// or more state names is a copy that can drift, and fails here. Derived sets (Extract/Exclude of
// a states.ts type) are fine. demo/ is excluded: those are synthetic business systems with their
// own vocabulary, not part of the product.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import * as states from '../../src-shared/states.js';

const root = resolve(import.meta.dirname, '../..');
const PRODUCT = ['src-shared', 'src-main', 'src-preload', 'src-renderer', 'src-hub'];
const HOME = 'src-shared/states.ts';

/**
 * Every name of every state vocabulary exported by states.ts (states, phases, availabilities,
 * outcomes, actions, evidence). Its code lists (task refusal codes, feedback categories) live there
 * too but share their names with error codes, so they are not part of this check.
 */
const VOCABULARY: ReadonlySet<string> = new Set(
  Object.entries(states as Record<string, unknown>)
    .filter(([name]) => /(STATES|PHASES|AVAILABILITIES|OUTCOMES|ACTIONS|EVIDENCE)$/.test(name))
    .map(([, v]) => v)
    .filter((v): v is string[] => Array.isArray(v) && v.every((x) => typeof x === 'string'))
    .flat(),
);

const sourceFiles = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(p);
    return /\.(ts|tsx)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });

interface Finding {
  file: string;
  line: number;
  names: string[];
}

/** String literals of a set-like node: array literal elements, or the members of a union type. */
function literalsOf(node: ts.Node): string[] | null {
  if (ts.isArrayLiteralExpression(node))
    return node.elements.filter(ts.isStringLiteralLike).map((e) => e.text);
  if (ts.isUnionTypeNode(node))
    return node.types
      .filter((t): t is ts.LiteralTypeNode => ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal))
      .map((t) => (t.literal as ts.StringLiteral).text);
  return null;
}

/** A union handed to Extract/Exclude narrows a states.ts type: it is derived, not declared. */
function isDerived(node: ts.Node): boolean {
  const parent = node.parent;
  return (
    ts.isTypeReferenceNode(parent) &&
    ts.isIdentifier(parent.typeName) &&
    ['Extract', 'Exclude'].includes(parent.typeName.text)
  );
}

/**
 * A list of error codes (`…_CODES`, e.g. the Hub's HUB_ERROR_CODES) is a vocabulary of its own:
 * some codes are spelled like states (`unauthorized`, `not_found`) without being copies of them.
 */
function isCodeList(node: ts.Node): boolean {
  let p = node.parent;
  while (p && (ts.isAsExpression(p) || ts.isSatisfiesExpression(p) || ts.isParenthesizedExpression(p)))
    p = p.parent;
  return !!p && ts.isVariableDeclaration(p) && ts.isIdentifier(p.name) && p.name.text.endsWith('_CODES');
}

export function findLiteralStateSets(file: string, text: string): Finding[] {
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const found: Finding[] = [];
  const visit = (node: ts.Node) => {
    const literals = literalsOf(node);
    if (literals && !isDerived(node) && !isCodeList(node)) {
      const names = [...new Set(literals.filter((l) => VOCABULARY.has(l)))];
      if (names.length >= 2)
        found.push({ file, line: sf.getLineAndCharacterOfPosition(node.getStart()).line + 1, names });
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return found;
}

describe('states live in one home', () => {
  it('the vocabulary is read from states.ts (and is not trivially small)', () => {
    for (const name of ['unverified', 'pending_dispatch', 'not_opened', 'storage_error', 'refused'])
      expect(VOCABULARY.has(name)).toBe(true);
  });

  it('catches a literal set in each of its forms (array, Set, z.enum, union type) and lets derived ones pass', () => {
    const planted = [
      "const A = ['approved', 'unknown'];",
      "const B = new Set(['open', 'blocked']);",
      "const C = z.enum(['running', 'completed']);",
      "type D = 'unknown' | 'unverified';",
      "let e: { state: 'paused' | 'cancelled' };",
    ].join('\n');
    expect(findLiteralStateSets('planted.ts', planted).map((f) => f.line)).toEqual([1, 2, 3, 4, 5]);
    const derived = [
      "type E = Extract<InvocationState, 'unknown' | 'unverified'>;",
      "const one = state === 'unknown';",
      "const words = ['read', 'write'];",
      "export const LOOKUP_ERROR_CODES = ['unauthorized', 'not_found'] as const;",
    ].join('\n');
    expect(findLiteralStateSets('derived.ts', derived)).toEqual([]);
  });

  it('no product file outside src-shared/states.ts declares its own set of state names', () => {
    const findings = PRODUCT.flatMap((dir) => sourceFiles(join(root, dir)))
      .filter((f) => relative(root, f) !== HOME)
      .flatMap((f) => findLiteralStateSets(relative(root, f), readFileSync(f, 'utf8')));
    expect(findings.map((f) => `${f.file}:${f.line} ${f.names.join(', ')}`)).toEqual([]);
  });
});
