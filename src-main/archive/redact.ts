/**
 * Keeps secrets out of the archive: values under secret-looking keys are replaced, and any
 * occurrence of a known secret value (model API key, Hub token — supplied by the caller, never
 * stored) is masked wherever it appears in a payload.
 */
const SECRET_KEY =
  /^(api[_-]?key|apikey|token|access[_-]?token|authorization|password|secret|signing[_-]?secret|bearer)$/i;
export const REDACTED = '[redacted]';

export function redactPayload(value: unknown, secrets: readonly string[]): unknown {
  const live = secrets.filter((s) => typeof s === 'string' && s.length >= 6);
  return walk(value, live);
}

function walk(value: unknown, secrets: readonly string[]): unknown {
  if (typeof value === 'string') return maskString(value, secrets);
  if (Array.isArray(value)) return value.map((v) => walk(v, secrets));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
      out[k] = SECRET_KEY.test(k) && v !== null && v !== undefined ? REDACTED : walk(v, secrets);
    }
    return out;
  }
  return value;
}

function maskString(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (out.includes(s)) out = out.split(s).join(REDACTED);
  return out;
}
