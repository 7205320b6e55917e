/**
 * Masks known secret values in a text that arrives in pieces (streamed model output). A secret
 * may be split across pieces, so a tail that could be the start of a secret is held back until
 * more text or the end of the stream shows whether it is one. Other text is passed on at once.
 */
import { REDACTED } from './redact.js';

export interface StreamRedactor {
  push(piece: string): string;
  flush(): string;
}

export function createStreamRedactor(secrets: readonly string[]): StreamRedactor {
  const live = secrets.filter((s) => typeof s === 'string' && s.length >= 6);
  let pending = '';
  /** Length of the longest tail of `t` that is a proper prefix of some secret. */
  const heldTail = (t: string) => {
    let best = 0;
    for (const s of live) {
      for (let n = Math.min(s.length - 1, t.length); n > best; n--) {
        if (t.endsWith(s.slice(0, n))) {
          best = n;
          break;
        }
      }
    }
    return best;
  };
  const mask = (t: string) =>
    live.reduce((acc, s) => (acc.includes(s) ? acc.split(s).join(REDACTED) : acc), t);
  return {
    push(piece) {
      pending = mask(pending + piece);
      const hold = heldTail(pending);
      const out = pending.slice(0, pending.length - hold);
      pending = pending.slice(pending.length - hold);
      return out;
    },
    flush() {
      const out = mask(pending);
      pending = '';
      return out;
    },
  };
}
