/**
 * How long a provider asked us to wait: `retry-after-ms` (milliseconds, OpenAI) first, then
 * `retry-after` in seconds or as an HTTP date. Null when neither says anything usable.
 */
export function retryAfterMs(
  headers: Headers | undefined | null,
  now: () => number = Date.now,
): number | null {
  if (!headers) return null;
  const ms = Number.parseFloat(headers.get('retry-after-ms') ?? '');
  if (Number.isFinite(ms) && ms >= 0) return Math.ceil(ms);
  const raw = headers.get('retry-after')?.trim();
  if (!raw) return null;
  if (/^\d+(\.\d+)?$/.test(raw)) return Math.ceil(Number.parseFloat(raw) * 1000);
  const at = Date.parse(raw);
  return Number.isFinite(at) ? Math.max(0, at - now()) : null;
}
