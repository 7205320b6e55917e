// The docs check: every repository path and every `docs/<page>.md#anchor` named in a comment
// (code, tests, scripts) or in the docs exists, and so does every relative Markdown link. A
// moved or renamed file, or a heading that changed, fails here instead of leaving a pointer to
// nothing. The briefings outside the repository are never cited (docs/design.md holds what the
// code needs of them).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '../..');
const TOP = [
  'src-shared',
  'src-main',
  'src-preload',
  'src-renderer',
  'src-hub',
  'demo',
  'test',
  'e2e',
  'docs',
  'scripts',
  'bench',
  'resources',
  '.ci',
];
const SKIP_DIRS = new Set([
  'node_modules',
  'out',
  'dist',
  '.tmp',
  'test-results',
  'playwright-report',
  '.git',
]);
const CODE = /\.(ts|tsx|mts|mjs|js|cjs)$/;

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name);
    if (e.isDirectory()) return SKIP_DIRS.has(e.name) ? [] : walk(p);
    return CODE.test(e.name) || e.name.endsWith('.md') ? [p] : [];
  });
}

const files = [
  ...TOP.flatMap((d) => walk(join(root, d))),
  ...readdirSync(root)
    .filter((f) => CODE.test(f) || f.endsWith('.md'))
    .map((f) => join(root, f)),
];

/** The comments of a code file (what people read as prose), via the TypeScript scanner. */
export function commentsOf(text: string, file: string): string {
  const scanner = ts.createScanner(
    ts.ScriptTarget.Latest,
    false,
    file.endsWith('x') ? ts.LanguageVariant.JSX : ts.LanguageVariant.Standard,
    text,
  );
  const out: string[] = [];
  for (let t = scanner.scan(); t !== ts.SyntaxKind.EndOfFileToken; t = scanner.scan()) {
    if (t === ts.SyntaxKind.SingleLineCommentTrivia || t === ts.SyntaxKind.MultiLineCommentTrivia)
      out.push(scanner.getTokenText());
    // Template literals and regexes are re-scanned so their contents are not read as code.
    if (t === ts.SyntaxKind.CloseBraceToken) scanner.reScanTemplateToken(false);
    if (t === ts.SyntaxKind.SlashToken || t === ts.SyntaxKind.SlashEqualsToken) scanner.reScanSlashToken();
  }
  return out.join('\n');
}

/** GitHub's heading anchors of a Markdown page. */
export function anchorsOf(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*```/.test(line)) fence = !fence;
    const m = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!m) continue;
    const slug = (m[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

interface Broken {
  file: string;
  ref: string;
}

const PREFIXES = TOP.filter((d) => !d.startsWith('.')).join('|');
/** A repository path: one of the top folders, then path characters (not followed by a glob or a placeholder). */
const REPO_PATH = new RegExp(`(?<![\\w./@-])((?:${PREFIXES})/[\\w./-]*)(?![\\w{*<./-])`, 'g');
const DOC_ANCHOR = /(?<![\w/-])(docs\/[\w.-]+\.md)#([\w-]+)/g;
const RELATIVE_PATH = /(?<![\w./-])(\.\.?\/[\w./-]+\.(?:ts|tsx|mjs|js|md|json|css))(?![\w{*<./-])/g;
const MD_LINK = /\]\(([^)\s]+)\)/g;
const BRIEFINGS =
  /seeds?\/|[Ss]eeds? `?00[01]|\b00[01]_\*?\.txt|[Tt]he seeds\b|[Tt]he seed's\b|[Ss]eed example|DESIGN\.md|ENVIRONMENT\.md|\.\.\/shared\b|\/work\/shared|\b[Pp]art [12]\b/g;

const pathExists = (p: string) => {
  const clean = p.replace(/[.,:;)]+$/, '');
  if (existsSync(clean)) return true;
  // ESM imports name the compiled file: `x.js` is `x.ts` in the sources.
  return (
    /\.js$/.test(clean) &&
    (existsSync(clean.replace(/\.js$/, '.ts')) || existsSync(clean.replace(/\.js$/, '.tsx')))
  );
};

const anchorCache = new Map<string, Set<string>>();
const anchors = (doc: string) => {
  let a = anchorCache.get(doc);
  if (!a) anchorCache.set(doc, (a = anchorsOf(readFileSync(doc, 'utf8'))));
  return a;
};

function check(file: string): Broken[] {
  const text = readFileSync(file, 'utf8');
  const prose = file.endsWith('.md') ? text : commentsOf(text, file);
  const rel = relative(root, file);
  const broken: Broken[] = [];
  for (const m of prose.matchAll(REPO_PATH)) {
    const ref = (m[1] ?? '').replace(/[.,:;]+$/, '');
    if (ref.split('/').length < 2 || ref.endsWith('/.')) continue;
    if (!pathExists(join(root, ref))) broken.push({ file: rel, ref });
  }
  for (const m of prose.matchAll(DOC_ANCHOR)) {
    const doc = join(root, m[1] ?? '');
    if (!existsSync(doc) || !anchors(doc).has(m[2] ?? '')) broken.push({ file: rel, ref: `${m[1]}#${m[2]}` });
  }
  // Relative (dot-slash) paths in code comments; Markdown relies on its links, checked below.
  for (const m of file.endsWith('.md') ? [] : prose.matchAll(RELATIVE_PATH)) {
    const ref = m[1] ?? '';
    if (!pathExists(resolve(dirname(file), ref))) broken.push({ file: rel, ref });
  }
  if (file.endsWith('.md')) {
    for (const m of text.matchAll(MD_LINK)) {
      const link = m[1] ?? '';
      if (/^[a-z]+:/i.test(link)) continue;
      const [path, anchor] = link.split('#');
      const target = path ? resolve(dirname(file), path) : file;
      if (!existsSync(target)) broken.push({ file: rel, ref: link });
      else if (anchor && target.endsWith('.md') && !anchors(target).has(anchor))
        broken.push({ file: rel, ref: link });
    }
  }
  return broken;
}

describe('docs check', () => {
  it('reads the files it should (so it cannot pass by reading nothing)', () => {
    const names = files.map((f) => relative(root, f));
    for (const f of [
      'README.md',
      'docs/design.md',
      'docs/architecture.md',
      'src-shared/states.ts',
      'scripts/test.mjs',
    ])
      expect(names).toContain(f);
  });

  it('finds a planted broken path, anchor and link, and reads only comments in code', () => {
    const code = [
      '// see src-main/runtime/no-such-file.ts and docs/design.md#no-such-anchor',
      "const s = 'src-main/also-not-here.ts'; // a string is code, not a comment",
      '/* docs/design.md#invariants and ./not-here.ts */',
    ].join('\n');
    const comments = commentsOf(code, 'x.ts');
    expect(comments).toContain('no-such-file.ts');
    expect(comments).not.toContain('also-not-here');
    expect([...comments.matchAll(REPO_PATH)].map((m) => m[1])).toContain('src-main/runtime/no-such-file.ts');
    expect([...comments.matchAll(DOC_ANCHOR)].map((m) => m[2])).toEqual(['no-such-anchor', 'invariants']);
    expect(anchors(join(root, 'docs/design.md')).has('invariants')).toBe(true);
    expect(anchors(join(root, 'docs/design.md')).has('no-such-anchor')).toBe(false);
    expect(anchorsOf('## States (`getX`, `restoreY`)\n## States\n')).toEqual(
      new Set(['states-getx-restorey', 'states']),
    );
  });

  it('every path, docs anchor and relative link named in comments and docs exists', () => {
    const broken = files.flatMap(check);
    expect(broken.map((b) => `${b.file}: ${b.ref}`)).toEqual([]);
  });

  it('the layouts in docs/architecture.md name every top-level file and folder of src-hub and every src-main folder', () => {
    const text = readFileSync(join(root, 'docs/architecture.md'), 'utf8');
    const blocks = [...text.matchAll(/```\n(src-(?:hub|main)\/\n[\s\S]*?)```/g)].map((m) => m[1] ?? '');
    const layout = (top: string) => blocks.find((b) => b.startsWith(`${top}/`)) ?? '';
    const named = (block: string, entry: string) =>
      new RegExp(`(^|[\\s(])${entry.replace('.', '\\.')}(/|\\b)`, 'm').test(block);
    const missing = [
      ...readdirSync(join(root, 'src-hub'))
        .filter((e) => !named(layout('src-hub'), e))
        .map((e) => `src-hub/${e}`),
      ...readdirSync(join(root, 'src-main'), { withFileTypes: true })
        .filter((e) => e.isDirectory() && !named(layout('src-main'), e.name))
        .map((e) => `src-main/${e.name}/`),
    ];
    expect(layout('src-hub').length).toBeGreaterThan(0);
    expect(layout('src-main').length).toBeGreaterThan(0);
    expect(missing).toEqual([]);
  });

  it('nothing cites the briefing documents that live outside the repository (BRIEFINGS above)', () => {
    const cites = files
      .filter((f) => !f.endsWith('links.test.ts'))
      .flatMap((f) => {
        const text = readFileSync(f, 'utf8');
        return [...text.matchAll(BRIEFINGS)].map((m) => `${relative(root, f)}: ${m[0]}`);
      });
    expect(cites).toEqual([]);
  });
});
