/** Serves the renderer build from one directory; nothing outside it can be named. */
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
  '.map': 'application/json',
};

export interface StaticFile {
  body: Buffer;
  type: string;
}

export async function readStatic(root: string, urlPath: string): Promise<StaticFile | null> {
  let decoded: string;
  try {
    decoded = decodeURIComponent(urlPath.split('?')[0] ?? '/');
  } catch {
    return null;
  }
  if (decoded.includes('\0')) return null;
  const rel = decoded === '/' || decoded === '' ? 'index.html' : normalize(decoded).replace(/^([/\\])+/, '');
  const base = resolve(root);
  const full = resolve(join(base, rel));
  if (full !== base && !full.startsWith(base + sep)) return null;
  try {
    const st = await stat(full);
    if (!st.isFile()) return null;
    return { body: await readFile(full), type: TYPES[extname(full)] ?? 'application/octet-stream' };
  } catch {
    return null;
  }
}
