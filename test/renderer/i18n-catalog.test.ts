// The two message catalogs stay in step: a key in one language and not the other fails (named),
// so do differing {placeholders} and untranslated copies; and the components carry no hard-coded
// English in JSX text or in title / aria-label / placeholder / alt attributes.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';

const EN: Record<string, string> = en;
const ZH: Record<string, string> = zh;
const placeholders = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();
/** Product words that are the same in both languages. */
const SAME_IN_BOTH = new Set(['Hub', 'HTTP', 'MCP']);

describe('message catalogs', () => {
  it('every English key exists in Chinese, and every Chinese key in English', () => {
    expect(
      Object.keys(EN).filter((k) => !(k in ZH)),
      'keys missing in zh.ts',
    ).toEqual([]);
    expect(
      Object.keys(ZH).filter((k) => !(k in EN)),
      'keys missing in en.ts',
    ).toEqual([]);
  });

  it('each key has the same placeholders in both languages', () => {
    const differing = Object.keys(EN).filter(
      (k) => k in ZH && placeholders(EN[k] ?? '').join() !== placeholders(ZH[k] ?? '').join(),
    );
    expect(differing).toEqual([]);
  });

  it('no Chinese text is an untranslated copy of the English one', () => {
    const copies = Object.keys(EN).filter((k) => ZH[k] === EN[k] && !SAME_IN_BOTH.has(EN[k] ?? ''));
    expect(copies).toEqual([]);
  });
});

describe('components', () => {
  const dir = resolve(import.meta.dirname, '../../src-renderer/src/components');
  const files = readdirSync(dir).filter((f) => f.endsWith('.tsx'));
  /** Language names are written in their own language on purpose. */
  const ALLOWED_TEXT = new Set(['English']);

  it('have no hard-coded English in JSX text or user-visible attributes', () => {
    expect(files.length).toBeGreaterThan(5);
    const found: string[] = [];
    for (const f of files) {
      const src = readFileSync(join(dir, f), 'utf8');
      for (const m of src.matchAll(/>([^<>{}=;()]*[A-Za-z]{2,}[^<>{}=;()]*)</g)) {
        const text = (m[1] ?? '').trim();
        if (text && !ALLOWED_TEXT.has(text)) found.push(`${f}: text "${text}"`);
      }
      for (const m of src.matchAll(/\b(title|aria-label|placeholder|alt)="([^"]*[A-Za-z][^"]*)"/g))
        found.push(`${f}: ${m[1]}="${m[2]}"`);
      for (const m of src.matchAll(/\|\|\s*'([A-Za-z][^']*)'/g)) found.push(`${f}: default '${m[1]}'`);
    }
    expect(found).toEqual([]);
  });
});
