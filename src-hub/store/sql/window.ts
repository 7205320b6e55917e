/** Fixed rate windows aligned to the epoch. */
export function windowBounds(nowMs: number, windowMs: number): { start: number; end: number } {
  const start = Math.floor(nowMs / windowMs) * windowMs;
  return { start, end: start + windowMs };
}
