/**
 * True when any known secret occurs anywhere in the serialized arguments. Only values of 12+
 * characters count: placeholder keys of local model servers ("ollama", "lm-studio") are no secret
 * and must not make ordinary words unusable in business data.
 */
export function containsSecret(args: unknown, secrets: readonly string[]): boolean {
  const text = JSON.stringify(args ?? null);
  return secrets.some(
    (s) =>
      typeof s === 'string' &&
      s.length >= 12 &&
      (text.includes(s) || text.includes(JSON.stringify(s).slice(1, -1))),
  );
}
