/**
 * Scans data directories the way an attacker with a copy of them would: every byte of every file
 * (SQLite databases, their WAL and SHM files, key files, logs), each secret looked for as UTF-8 and
 * as UTF-16LE text, and the mode of every file (0600) and directory (0700).
 */
import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

export function entriesUnder(dir: string): Array<{ path: string; kind: 'file' | 'directory'; mode: number }> {
  const out: Array<{ path: string; kind: 'file' | 'directory'; mode: number }> = [];
  const visit = (p: string) => {
    const st = lstatSync(p);
    if (st.isSymbolicLink()) return;
    if (st.isDirectory()) {
      out.push({ path: p, kind: 'directory', mode: st.mode & 0o777 });
      for (const name of readdirSync(p)) visit(join(p, name));
    } else if (st.isFile()) out.push({ path: p, kind: 'file', mode: st.mode & 0o777 });
  };
  visit(dir);
  return out;
}

export const filesUnder = (dir: string) =>
  entriesUnder(dir)
    .filter((e) => e.kind === 'file')
    .map((e) => e.path);

/** Every (file, secret name) where the secret's text appears in the file's bytes. */
export function secretsInFiles(
  dirs: string[],
  secrets: Record<string, string>,
): Array<{ file: string; secret: string }> {
  const found: Array<{ file: string; secret: string }> = [];
  const needles = Object.entries(secrets)
    .filter(([, v]) => v.length >= 8)
    .flatMap(([name, v]) => [
      { name, bytes: Buffer.from(v, 'utf8') },
      { name, bytes: Buffer.from(v, 'utf16le') },
    ]);
  for (const dir of dirs)
    for (const file of filesUnder(dir)) {
      const bytes = readFileSync(file);
      for (const n of needles)
        if (bytes.includes(n.bytes) && !found.some((f) => f.file === file && f.secret === n.name))
          found.push({ file, secret: n.name });
    }
  return found;
}

/** Entries whose mode is wider than owner-only (files 0600, directories 0700). */
export function wideModes(dirs: string[]): Array<{ path: string; mode: string }> {
  return dirs
    .flatMap((d) => entriesUnder(d))
    .filter((e) => (e.mode & 0o077) !== 0)
    .map((e) => ({ path: e.path, mode: e.mode.toString(8).padStart(4, '0') }));
}
