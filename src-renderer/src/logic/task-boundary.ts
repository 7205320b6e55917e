/**
 * Builds a CreateTaskRequest from the task form: per system (authorization) the tools it may call,
 * and per write tool an optional rule — only some values of its key field (e.g. `product_id` 7, 13)
 * and only some fields it may change (e.g. the description) — expressed as a JSON Schema the Hub
 * enforces on the call's arguments (independent of any prompt). `ruleWords` reads such a schema
 * back for the boundary, in the operator's language.
 */
import type { CreateTaskRequest, RateWindow } from '../../../src-shared/hub-api.js';

/** What the operator set for one write tool. `onlyFields: null` = any field may be changed. */
export interface ToolRule {
  tool: string;
  keyField: string | null;
  keyValues: string[];
  onlyFields: string[] | null;
}

export interface TaskForm {
  title: string;
  selection: Array<{ authorization_ref: string; tools: string[]; rules?: ToolRule[] }>;
  writeBudget: number;
  inFlight: number;
  rate: { count: number; window: RateWindow } | null;
}

/** The field a rule's values limit: the tool's first `…id` field (`product_id`, `sku_id`), else none. */
export function keyFieldOf(fields: readonly string[]): string | null {
  return fields.find((f) => f === 'id' || /_id$/.test(f)) ?? null;
}

const asValue = (v: string): string | number => (/^\d+$/.test(v) ? Number(v) : v);

export function ruleSchema(rule: ToolRule): Record<string, unknown> | null {
  const key = rule.keyValues.length > 0 ? rule.keyField : null;
  if (!key && rule.onlyFields === null) return null;
  const schema: Record<string, unknown> = { type: 'object' };
  if (key) {
    schema['properties'] = { [key]: { enum: rule.keyValues.map(asValue) } };
    schema['required'] = [key];
  }
  if (rule.onlyFields !== null) {
    const names = [
      ...(rule.keyField ? [rule.keyField] : []),
      ...rule.onlyFields.filter((f) => f !== rule.keyField),
    ];
    schema['propertyNames'] = { enum: names };
  }
  return schema;
}

/** The rule in plain English for the Hub's record (the desk words it from the schema: `ruleWords`). */
export function ruleDescription(rule: ToolRule): string {
  const parts: string[] = [];
  if (rule.keyField && rule.keyValues.length > 0)
    parts.push(`only ${rule.keyField} ${rule.keyValues.join(', ')}`);
  if (rule.onlyFields !== null) parts.push(`may change only ${rule.onlyFields.join(', ') || 'nothing'}`);
  return parts.join('; ');
}

/** The demo's classic: edits of the chosen products may change their description only. */
export function descriptionOnlySchema(productIds: string[]): Record<string, unknown> {
  return (
    ruleSchema({ tool: '', keyField: 'product_id', keyValues: productIds, onlyFields: ['description'] }) ?? {}
  );
}

export function parseProductIds(text: string): string[] {
  return text
    .split(/[\s,，]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function taskRequestFrom(form: TaskForm): CreateTaskRequest {
  const selected = form.selection.filter((s) => s.tools.length > 0);
  const constraints = selected.flatMap((s) =>
    (s.rules ?? [])
      .filter((r) => s.tools.includes(r.tool))
      .flatMap((r) => {
        const schema = ruleSchema(r);
        return schema
          ? [
              {
                authorization_ref: s.authorization_ref,
                tool: r.tool,
                schema,
                description: ruleDescription(r),
              },
            ]
          : [];
      }),
  );
  return {
    title: form.title.trim(),
    authorizations: selected.map((s) => ({ authorization_ref: s.authorization_ref, tools: [...s.tools] })),
    write_budget: form.writeBudget,
    in_flight_limit: form.inFlight,
    rate_limit: form.rate,
    constraints,
    expires_at: null,
  };
}

export type RuleWord = { kind: 'values'; field: string; values: string } | { kind: 'fields'; fields: string };

/**
 * What a constraint schema says, as the boundary shows it: the values a field is held to
 * (`properties.<f>.enum`) and the fields a call may name (`propertyNames.enum`); null for a schema
 * of another shape (the boundary then shows the rule's own description).
 */
export function ruleWords(schema: Record<string, unknown>): RuleWord[] | null {
  const out: RuleWord[] = [];
  const props = schema['properties'];
  if (props && typeof props === 'object' && !Array.isArray(props)) {
    for (const [field, p] of Object.entries(props as Record<string, unknown>)) {
      const values = p && typeof p === 'object' ? (p as { enum?: unknown }).enum : undefined;
      if (Array.isArray(values)) out.push({ kind: 'values', field, values: values.map(String).join(', ') });
    }
  }
  const names = (schema['propertyNames'] as { enum?: unknown } | undefined)?.enum;
  if (Array.isArray(names)) {
    const keys = new Set(out.map((w) => (w.kind === 'values' ? w.field : '')));
    out.push({
      kind: 'fields',
      fields: names
        .map(String)
        .filter((n) => !keys.has(n))
        .join(', '),
    });
  }
  return out.length > 0 ? out : null;
}
