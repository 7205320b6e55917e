/**
 * One child process of the harness (Hub, demo systems, browser host): spawned as a single Node
 * process (`node --import tsx script`, so a SIGKILL really ends the program and leaves no
 * grandchild behind), its output kept in memory and appended to a log file, with helpers to
 * wait for an output line, SIGKILL it, or stop it cleanly.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { appendFileSync } from 'node:fs';

export interface ChildProc {
  readonly name: string;
  readonly pid: number;
  readonly child: ChildProcess;
  /** Output lines so far (stdout and stderr, in arrival order). */
  lines(): string[];
  /** Resolves with the first line (past or future) matching `re`; rejects on exit or timeout. */
  waitForLine(re: RegExp, timeoutMs?: number): Promise<RegExpMatchArray>;
  /** Resolves when the process has exited (with its code, or null when killed by a signal). */
  readonly exited: Promise<number | null>;
  alive(): boolean;
  /** SIGKILL: no shutdown handler runs. */
  kill(): Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`. */
  stop(graceMs?: number): Promise<void>;
}

export interface SpawnOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  logFile?: string;
}

export function spawnTs(name: string, script: string, args: string[], opts: SpawnOptions): ChildProc {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: opts.cwd,
    env: { ...process.env, ...opts.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  if (child.pid === undefined) throw new Error(`${name}: could not spawn ${script}`);
  const out: string[] = [];
  const waiters = new Set<{ re: RegExp; resolve: (m: RegExpMatchArray) => void }>();
  let exitedFlag = false;
  const exited = new Promise<number | null>((resolve) => {
    child.once('exit', (code) => {
      exitedFlag = true;
      resolve(code);
    });
  });
  const onText = (buf: Buffer, partial: { text: string }) => {
    partial.text += buf.toString('utf8');
    const parts = partial.text.split('\n');
    partial.text = parts.pop() ?? '';
    for (const line of parts) {
      out.push(line);
      if (opts.logFile) {
        try {
          appendFileSync(opts.logFile, `[${name}] ${line}\n`);
        } catch {
          // the log is a convenience only
        }
      }
      for (const w of [...waiters]) {
        const m = w.re.exec(line);
        if (m) {
          waiters.delete(w);
          w.resolve(m);
        }
      }
    }
  };
  const so = { text: '' };
  const se = { text: '' };
  child.stdout?.on('data', (b: Buffer) => onText(b, so));
  child.stderr?.on('data', (b: Buffer) => onText(b, se));

  const proc: ChildProc = {
    name,
    pid: child.pid,
    child,
    lines: () => [...out],
    exited,
    alive: () => !exitedFlag,
    waitForLine(re, timeoutMs = 60_000) {
      for (const line of out) {
        const m = re.exec(line);
        if (m) return Promise.resolve(m);
      }
      return new Promise((resolve, reject) => {
        const w = { re, resolve: (m: RegExpMatchArray) => (clearTimeout(timer), resolve(m)) };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(
            new Error(
              `${name}: no output line matching ${re} within ${timeoutMs} ms; last lines:\n${out.slice(-15).join('\n')}`,
            ),
          );
        }, timeoutMs);
        waiters.add(w);
        void exited.then((code) => {
          if (!waiters.has(w)) return;
          waiters.delete(w);
          clearTimeout(timer);
          reject(
            new Error(
              `${name} exited (${code}) before printing ${re}; last lines:\n${out.slice(-15).join('\n')}`,
            ),
          );
        });
      });
    },
    async kill() {
      if (!exitedFlag) child.kill('SIGKILL');
      await exited;
    },
    async stop(graceMs = 10_000) {
      if (exitedFlag) return;
      child.kill('SIGTERM');
      const t = setTimeout(() => child.kill('SIGKILL'), graceMs);
      await exited;
      clearTimeout(t);
    },
  };
  return proc;
}
