// Chinese text needs a CJK face: the body font stack (and the one used when the page is in
// Chinese) names the common Simplified Chinese faces of Linux, macOS and Windows before the
// generic family, so zh renders wherever one of them is installed.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const css = readFileSync(resolve(import.meta.dirname, '../../src-renderer/src/styles.css'), 'utf8');
const CJK = ['Noto Sans CJK SC', 'PingFang SC', 'Microsoft YaHei'];

function families(rule: RegExp): string[] {
  const decl = rule.exec(css)?.[1] ?? '';
  return decl
    .replace(/\s+/g, ' ')
    .split(',')
    .map((f) => f.trim().replace(/^'|'$/g, '').replace(/^"|"$/g, ''));
}

describe('font stacks', () => {
  it('the body stack has CJK fallbacks before the generic family', () => {
    const list = families(/\nbody \{[^}]*?font:\s*14px\/1\.45 ([^;]+);/);
    expect(list.at(-1)).toBe('sans-serif');
    for (const f of CJK) {
      expect(list, f).toContain(f);
      expect(list.indexOf(f)).toBeLessThan(list.length - 1);
    }
  });

  it('in Chinese the CJK faces lead', () => {
    const list = families(/html:lang\(zh\) body \{\s*font-family:\s*([^;]+);/);
    expect(list.slice(0, 2)).toEqual(['PingFang SC', 'Noto Sans CJK SC']);
    for (const f of CJK) expect(list).toContain(f);
    expect(list.at(-1)).toBe('sans-serif');
  });
});
