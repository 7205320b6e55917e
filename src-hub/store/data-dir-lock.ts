/**
 * One serving Hub per data directory: startup recovery turns every `dispatching` record into
 * `unknown`, which is only right when no other Hub is sending them. The lock is a `hub.pid` file
 * (created exclusively); a lock whose process is gone (e.g. after SIGKILL) is taken over.
 */
import { readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

const heldHere = new Set<string>();

export class DataDirLockedError extends Error {}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function lockDataDir(dataDir: string): () => void {
  const dir = resolve(dataDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const file = join(dir, 'hub.pid');
  if (heldHere.has(dir)) throw new DataDirLockedError(`another Hub in this process serves ${dir}`);
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    const pid = Number(readFileSync(file, 'utf8').trim());
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) {
      throw new DataDirLockedError(`another Hub (pid ${pid}) serves ${dir}; refusing to start`);
    }
    writeFileSync(file, String(process.pid), { mode: 0o600 });
  }
  heldHere.add(dir);
  return () => {
    heldHere.delete(dir);
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true });
    } catch {
      /* already gone */
    }
  };
}
