/**
 * Launch-time remote Hub (headless launches: e2e, CI, operator scripts without an OS keychain).
 *
 *   BAILING_HUB_URL=https://hub.example:8443  BAILING_HUB_TOKEN_FILE=/path/to/token   (both or neither)
 *
 * The token file must be a regular file owned by this user and readable by no one else (mode 0600
 * or stricter), at most 4 KiB, holding the client token (surrounding whitespace ignored). It is read
 * once at start into memory; the token is never written anywhere (not the settings file, the
 * keychain, the journal, the archive or logs) and never sent to the renderer. The route applies to
 * this launch only: the saved settings are not changed. There is deliberately no variable carrying
 * the token itself (environments are inherited by child processes and visible to the same user).
 */
import { closeSync, fstatSync, openSync, readSync, constants as fsConstants } from 'node:fs';

export interface LaunchHub {
  url: string;
  token: string;
}

export class LaunchHubError extends Error {
  override name = 'LaunchHubError';
}

const MAX_TOKEN_FILE_BYTES = 4096;

/** Null when neither variable is set; throws LaunchHubError (never echoing the token) when the route is incomplete or unsafe. */
export function launchHubFromEnv(
  env: NodeJS.ProcessEnv,
  deps: { uid?: number | null } = {},
): LaunchHub | null {
  const url = env.BAILING_HUB_URL?.trim() || '';
  const file = env.BAILING_HUB_TOKEN_FILE?.trim() || '';
  if (!url && !file) return null;
  if (!url || !file)
    throw new LaunchHubError('BAILING_HUB_URL and BAILING_HUB_TOKEN_FILE must be set together.');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new LaunchHubError('BAILING_HUB_URL is not a valid URL.');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:')
    throw new LaunchHubError('BAILING_HUB_URL must be an http(s) URL.');
  if (parsed.username || parsed.password)
    throw new LaunchHubError(
      'BAILING_HUB_URL must not carry credentials; put the token in BAILING_HUB_TOKEN_FILE.',
    );
  return {
    url: parsed.toString().replace(/\/$/, ''),
    token: readTokenFile(file, deps.uid === undefined ? currentUid() : deps.uid),
  };
}

function currentUid(): number | null {
  return typeof process.getuid === 'function' ? process.getuid() : null;
}

function readTokenFile(path: string, uid: number | null): string {
  let fd: number;
  try {
    // O_NOFOLLOW: the checked file is the file read (no symlink swapped in between).
    fd = openSync(path, fsConstants.O_RDONLY | (fsConstants.O_NOFOLLOW ?? 0));
  } catch (err) {
    throw new LaunchHubError(
      `BAILING_HUB_TOKEN_FILE cannot be opened (${(err as NodeJS.ErrnoException).code ?? 'error'}).`,
    );
  }
  try {
    const st = fstatSync(fd);
    if (!st.isFile()) throw new LaunchHubError('BAILING_HUB_TOKEN_FILE is not a regular file.');
    if (process.platform !== 'win32') {
      if ((st.mode & 0o077) !== 0) {
        throw new LaunchHubError(
          `BAILING_HUB_TOKEN_FILE must be readable by its owner only (mode 0600); it is ${(st.mode & 0o777).toString(8).padStart(4, '0')}.`,
        );
      }
      if (uid !== null && st.uid !== uid)
        throw new LaunchHubError('BAILING_HUB_TOKEN_FILE must be owned by the user running the app.');
    }
    if (st.size > MAX_TOKEN_FILE_BYTES)
      throw new LaunchHubError(`BAILING_HUB_TOKEN_FILE is larger than ${MAX_TOKEN_FILE_BYTES} bytes.`);
    const buf = Buffer.alloc(MAX_TOKEN_FILE_BYTES + 1);
    let n = 0;
    for (;;) {
      const r = readSync(fd, buf, n, buf.length - n, null);
      if (r === 0) break;
      n += r;
      if (n > MAX_TOKEN_FILE_BYTES)
        throw new LaunchHubError(`BAILING_HUB_TOKEN_FILE is larger than ${MAX_TOKEN_FILE_BYTES} bytes.`);
    }
    const token = buf.subarray(0, n).toString('utf8').trim();
    buf.fill(0);
    if (token.length === 0) throw new LaunchHubError('BAILING_HUB_TOKEN_FILE is empty.');
    if ([...token].some((ch) => ch.trim() === '' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
      throw new LaunchHubError(
        'BAILING_HUB_TOKEN_FILE must hold one token (no spaces, line breaks or control characters inside).',
      );
    return token;
  } finally {
    closeSync(fd);
  }
}
