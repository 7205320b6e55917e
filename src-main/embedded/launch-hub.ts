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
import { PrivateFileError, readOwnerOnlyFile } from '../../src-shared/private-files.js';

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
    token: readTokenFile(file, deps.uid),
  };
}

function readTokenFile(path: string, uid: number | null | undefined): string {
  let token: string;
  try {
    token = readOwnerOnlyFile(path, {
      label: 'BAILING_HUB_TOKEN_FILE',
      maxBytes: MAX_TOKEN_FILE_BYTES,
      ...(uid === undefined ? {} : { uid }),
    });
  } catch (err) {
    if (err instanceof PrivateFileError) throw new LaunchHubError(err.message);
    throw err;
  }
  if (token.length === 0) throw new LaunchHubError('BAILING_HUB_TOKEN_FILE is empty.');
  if ([...token].some((ch) => ch.trim() === '' || ch.charCodeAt(0) < 0x20 || ch.charCodeAt(0) === 0x7f))
    throw new LaunchHubError(
      'BAILING_HUB_TOKEN_FILE must hold one token (no spaces, line breaks or control characters inside).',
    );
  return token;
}
