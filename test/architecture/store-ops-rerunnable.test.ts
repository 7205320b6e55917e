/**
 * Both stores run a group-commit batch again when one of its writes fails (write by write, each in
 * a savepoint) or when PostgreSQL rolls the whole batch back (a deadlock): every write of the batch
 * then executes twice, once in a transaction that never committed. That is only right if a write
 * acts through its session alone — no module-level state it changes, no change to the objects it
 * was handed (docs/architecture.md, "Group commit"). This test reads the store's shared SQL layer
 * (src-hub/store/sql: the operations and what they call) and fails on the patterns that would break
 * it: a top-level `let`/`var`, or a top-level binding that is changed anywhere in its file (a call
 * of a mutating method on it, an assignment to one of its members). The only module state allowed
 * is listed below with why a second run cannot be told from the first.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const layer = join(root, 'src-hub/store/sql');

/** file (relative to src-hub/store/sql) → top-level names it may change, and why that is safe. */
const MEMO_CACHES: Record<string, Record<string, string>> = {
  'operation-json.ts': {
    parsed: 'parse cache keyed by the text itself: the same text always gives an equal frozen object',
    textOf: 'the text each cached object came from: written once per object, never changed',
  },
};

const MUTATORS = new Set([
  'push',
  'pop',
  'shift',
  'unshift',
  'splice',
  'sort',
  'reverse',
  'fill',
  'copyWithin',
  'set',
  'add',
  'delete',
  'clear',
]);

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? tsFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

interface Finding {
  file: string;
  line: number;
  what: string;
}

/** The root identifier of `a`, `a.b`, `a[b].c`, or null. */
function rootName(node: ts.Expression): string | null {
  let n: ts.Expression = node;
  while (ts.isPropertyAccessExpression(n) || ts.isElementAccessExpression(n)) n = n.expression;
  return ts.isIdentifier(n) ? n.text : null;
}

function isAssignment(kind: ts.SyntaxKind): boolean {
  return kind >= ts.SyntaxKind.FirstAssignment && kind <= ts.SyntaxKind.LastAssignment;
}

function findModuleState(file: string, text: string): Finding[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS);
  const findings: Finding[] = [];
  const at = (node: ts.Node, what: string) =>
    findings.push({ file, line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, what });
  const topLevel = new Set<string>();
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const flags = statement.declarationList.flags;
    const mutableBinding = !(flags & ts.NodeFlags.Const);
    for (const d of statement.declarationList.declarations) {
      if (!ts.isIdentifier(d.name)) continue;
      if (mutableBinding) at(d, `top-level let/var ${d.name.text}`);
      topLevel.add(d.name.text);
    }
  }
  const visit = (node: ts.Node): void => {
    if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
      const name = rootName(node.expression.expression);
      if (name && topLevel.has(name) && MUTATORS.has(node.expression.name.text)) {
        at(node, `${name}.${node.expression.name.text}(…) changes module state`);
      }
    }
    if (ts.isBinaryExpression(node) && isAssignment(node.operatorToken.kind)) {
      const left = node.left;
      if (ts.isPropertyAccessExpression(left) || ts.isElementAccessExpression(left)) {
        const name = rootName(left);
        if (name && topLevel.has(name)) at(node, `assignment to a member of ${name}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return findings;
}

describe('the store SQL layer can run a write twice (group-commit reruns)', () => {
  it('changes no module state but the listed memo caches', () => {
    const found: string[] = [];
    for (const path of tsFiles(layer)) {
      const file = relative(layer, path);
      const allowed = MEMO_CACHES[file] ?? {};
      for (const f of findModuleState(file, readFileSync(path, 'utf8'))) {
        const name = Object.keys(allowed).find((n) => f.what.startsWith(`${n}.`));
        if (name === undefined) found.push(`${f.file}:${f.line} ${f.what}`);
      }
    }
    expect(found).toEqual([]);
  });

  it('sees the patterns it forbids', () => {
    const sample = [
      'let counter = 0;',
      'const seen = new Set<string>();',
      'const list: string[] = [];',
      'const box = { n: 0 };',
      'export function write(id: string) {',
      '  seen.add(id);',
      '  list.push(id);',
      '  box.n += 1;',
      '  const local: string[] = [];',
      '  local.push(id);',
      '  return local;',
      '}',
    ].join('\n');
    expect(findModuleState('sample.ts', sample).map((f) => f.what)).toEqual([
      'top-level let/var counter',
      'seen.add(…) changes module state',
      'list.push(…) changes module state',
      'assignment to a member of box',
    ]);
  });
});
