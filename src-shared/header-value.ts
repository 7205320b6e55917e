/**
 * What may travel in an HTTP header value between the Hub and a business system: visible ASCII
 * (0x21–0x7E) with inner spaces, no leading or trailing space. Anything else either cannot be sent
 * by Node (characters above U+00FF, control characters) or arrives as bytes that a verifier in
 * another language reads differently from what the Hub signed (Latin-1 vs UTF-8, trimmed spaces).
 */
const HEADER_SAFE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;

export function isHeaderSafe(value: string): boolean {
  return HEADER_SAFE.test(value);
}

/** Why a value cannot be an `x-bailing-on-behalf-of` subject (see onBehalfOfProblem). */
export const ON_BEHALF_OF_RULE =
  'on_behalf_of travels in the x-bailing-on-behalf-of header (and in the signature) and must be ' +
  'visible ASCII without leading or trailing spaces, e.g. "zhangsan@shop.example" or "tenant-a:u42"; ' +
  "keep a person's name in account";

/** Why a value cannot be an `x-bailing-on-behalf-of` subject, or null when it can. */
export function onBehalfOfProblem(value: string): string | null {
  return isHeaderSafe(value) ? null : ON_BEHALF_OF_RULE;
}
