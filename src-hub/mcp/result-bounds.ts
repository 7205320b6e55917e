/**
 * What of a server's answer the Hub keeps: the JSON as it came, unless it is larger than the bound
 * (then its first bytes as text, marked truncated) or nested too deep to serialise again (then a
 * note, marked truncated). The same bound as an HTTP system's answer.
 */
import { jsonTextDeeperThan, MAX_BUSINESS_JSON_DEPTH } from '../../src-shared/json-depth.js';

export const MAX_RESULT_BYTES = 256 * 1024;

export function keepResult(
  value: unknown,
  maxBytes = MAX_RESULT_BYTES,
): { result: unknown; truncated: boolean } {
  let text: string;
  try {
    text = JSON.stringify(value ?? null);
  } catch {
    return { result: 'the answer is nested too deep to keep', truncated: true };
  }
  if (Buffer.byteLength(text) > maxBytes)
    return { result: Buffer.from(text).subarray(0, maxBytes).toString('utf8'), truncated: true };
  if (jsonTextDeeperThan(text, MAX_BUSINESS_JSON_DEPTH)) return { result: text, truncated: false };
  return { result: value ?? null, truncated: false };
}
