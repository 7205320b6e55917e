/**
 * Fills an ACC approval prompt template ("Publish product {product_id} on {channel}?") with the
 * call's arguments so the approver sees what exactly they approve. Audit-sensitive operations keep
 * the bare template (their argument values are never shown outside the business request).
 */
export function renderPrompt(
  template: string | null,
  args: Record<string, unknown>,
  sensitive: boolean,
): string | null {
  if (template === null || sensitive) return template;
  return template.replace(/\{([A-Za-z0-9_]+)\}/g, (whole, name: string) => {
    const v = args[name];
    if (v === undefined) return whole;
    const text = typeof v === 'string' ? v : JSON.stringify(v);
    return text.length > 200 ? `${text.slice(0, 200)}…` : text;
  });
}
