/**
 * Files and directories only their owner may read: every file the Hub and the desk create is 0600
 * and every directory 0700; ones that already exist with wider modes are tightened and reported
 * through `notice` (the caller logs it). Also the one reader of owner-only files (key and token
 * files): a regular file, not a symlink, owned by this user, no group or other bits, bounded size.
 * Node-only (never imported by the renderer). Modes do not apply on Windows.
 */
import {
  chmodSync,
  closeSync,
  fstatSync,
  lstatSync,
  mkdirSync,
  openSync,
  readdirSync,
  readSync,
  constants as fsConstants,
} from 'node:fs';
import { join } from 'node:path';

export const PRIVATE_FILE_MODE = 0o600;
export const PRIVATE_DIR_MODE = 0o700;

/** Called when an existing file or directory had a wider mode than its owner's and was tightened. */
export type ModeNotice = (path: string, kind: 'file' | 'directory', before: number) => void;

const POSIX = process.platform !== 'win32';

/** `0644`-style text for a mode (messages and logs). */
export const modeText = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

function tighten(path: string, kind: 'file' | 'directory', mode: number, notice?: ModeNotice): void {
  if (!POSIX || (mode & 0o077) === 0) return;
  // keep the owner's bits (an executable stays executable for its owner), drop everyone else's
  chmodSync(path, kind === 'directory' ? PRIVATE_DIR_MODE : (mode & 0o700) | 0o600);
  notice?.(path, kind, mode & 0o777);
}

/** Creates the directory (and parents) with mode 0700; an existing one with group/other bits is tightened. */
export function ensurePrivateDir(dir: string, notice?: ModeNotice): void {
  mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE });
  const st = lstatSync(dir);
  if (st.isDirectory()) tighten(dir, 'directory', st.mode, notice);
}

/** Creates an empty file with mode 0600 if there is none (so e.g. SQLite's WAL and SHM files inherit it); tightens an existing one. */
export function ensurePrivateFile(path: string, notice?: ModeNotice): void {
  let created = false;
  try {
    closeSync(
      openSync(path, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, PRIVATE_FILE_MODE),
    );
    created = true;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  if (created) return;
  const st = lstatSync(path);
  if (st.isFile()) tighten(path, 'file', st.mode, notice);
}

/**
 * Tightens an existing tree: directories to 0700, files to 0600 (only those with group or other
 * bits). Symbolic links are neither followed nor changed; entries this user cannot change are left
 * as they are. A missing directory is nothing to do.
 */
export function tightenTree(dir: string, notice?: ModeNotice): void {
  if (!POSIX) return;
  let st;
  try {
    st = lstatSync(dir);
  } catch {
    return;
  }
  if (!st.isDirectory()) return;
  const visit = (path: string, depth: number) => {
    let s;
    try {
      s = lstatSync(path);
    } catch {
      return;
    }
    if (s.isSymbolicLink()) return;
    try {
      if (s.isDirectory()) tighten(path, 'directory', s.mode, notice);
      else if (s.isFile()) tighten(path, 'file', s.mode, notice);
    } catch {
      // not ours to change (another owner): left as it is
    }
    if (s.isDirectory() && depth < 16) {
      let names: string[] = [];
      try {
        names = readdirSync(path);
      } catch {
        return;
      }
      for (const name of names) visit(join(path, name), depth + 1);
    }
  };
  visit(dir, 0);
}

export class PrivateFileError extends Error {
  override name = 'PrivateFileError';
}

export interface OwnerOnlyFileOptions {
  /** How the file is named in messages (e.g. `BAILING_HUB_TOKEN_FILE`, `the secret key file`). */
  label: string;
  maxBytes: number;
  /** The owner it must have (default: this process's user; null: not checked). */
  uid?: number | null;
}

function currentUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

/**
 * Reads a file that must be readable by its owner only: a regular file (opened with O_NOFOLLOW, so
 * the file checked is the file read), owned by this user, no group or other bits, at most
 * `maxBytes`. Answers its text with surrounding whitespace removed; messages never echo the content.
 */
export function readOwnerOnlyFile(path: string, opts: OwnerOnlyFileOptions): string {
  const uid = opts.uid === undefined ? currentUid() : opts.uid;
  let fd: number;
  try {
    fd = openSync(path, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (err) {
    throw new PrivateFileError(
      `${opts.label} cannot be opened (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new PrivateFileError(`${opts.label} is not a regular file.`);
    if (POSIX) {
      if ((st.mode & 0o077) !== 0)
        throw new PrivateFileError(
          `${opts.label} must be readable by its owner only (mode 0600); it is ${modeText(st.mode)}.`,
        );
      if (uid !== null && st.uid !== uid)
        throw new PrivateFileError(`${opts.label} must be owned by the user running the app.`);
    }
    if (st.size > opts.maxBytes)
      throw new PrivateFileError(`${opts.label} is larger than ${opts.maxBytes} bytes.`);
    const buf = Buffer.alloc(opts.maxBytes + 1);
    let n = 0;
    for (;;) {
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
      if (n > opts.maxBytes)
        throw new PrivateFileError(`${opts.label} is larger than ${opts.maxBytes} bytes.`);
    }
    const text = buf.subarray(0, n).toString('utf8').trim();
    buf.fill(0);
    return text;
  } finally {
    closeSync(fd);
  }
}
