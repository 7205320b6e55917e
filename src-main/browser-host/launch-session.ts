/**
 * Browser mode's launch credentials (docs/operations.md, "Browser mode"). The printed link carries
 * a one-time code in its fragment; the page exchanges it (POST /session) for the launch's session
 * credential, an HttpOnly, SameSite=Strict cookie scoped to the host, which the WebSocket upgrade
 * then presents. So the link is useless once opened (its code is spent), nothing reusable stays in
 * the browser's history, and a reload of the tab keeps working (the cookie). Everything is compared
 * in constant time; nothing here is ever logged.
 */
import { newLaunchToken, tokenMatches } from './token.js';

export const SESSION_COOKIE = 'bailing_session';

export type ExchangeOutcome = 'ok' | 'used' | 'invalid';

export interface LaunchSession {
  /** The one-time code of the printed link. */
  readonly code: string;
  /** Spends the code: `ok` once, `used` for the same code afterwards, `invalid` for anything else. */
  exchange(presented: unknown): ExchangeOutcome;
  /** The Set-Cookie header value that hands the session credential to the page. */
  setCookie(): string;
  /** The Cookie request header value a non-browser client of this launch sends (tests, harnesses). */
  cookieHeader(): string;
  /** The session credential itself (to serve the same launch again after a brief outage, in-process). */
  readonly secret: string;
  /** Whether a request's Cookie header carries this launch's session credential. */
  authorized(cookieHeader: string | undefined): 'ok' | 'missing' | 'other';
}

function cookieValue(header: string | undefined, name: string): string | null {
  if (!header || header.length > 8192) return null;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    if (part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return null;
}

export function createLaunchSession(opts: { code?: string; secret?: string } = {}): LaunchSession {
  const code = opts.code ?? newLaunchToken();
  const secret = opts.secret ?? newLaunchToken();
  let spent = false;
  return {
    code,
    secret,
    exchange(presented) {
      if (!tokenMatches(code, presented)) return 'invalid';
      if (spent) return 'used';
      spent = true;
      return 'ok';
    },
    setCookie: () => `${SESSION_COOKIE}=${secret}; HttpOnly; SameSite=Strict; Path=/`,
    cookieHeader: () => `${SESSION_COOKIE}=${secret}`,
    authorized(header) {
      const v = cookieValue(header, SESSION_COOKIE);
      if (v === null) return 'missing';
      return tokenMatches(secret, v) ? 'ok' : 'other';
    },
  };
}
