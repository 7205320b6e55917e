/**
 * Builds a CreateTaskRequest from the task form: selected authorizations with their allowed tools,
 * budgets, rate, and the "description only" constraint for chosen products, expressed as a JSON
 * Schema the Hub enforces on `update_product` arguments (independent of any prompt).
 */
import type { CreateTaskRequest, RateWindow } from '../../../src-shared/hub-api.js';

export interface TaskForm {
  title: string;
  selection: Array<{ authorization_ref: string; tools: string[] }>;
  writeBudget: number;
  inFlight: number;
  rate: { count: number; window: RateWindow } | null;
  /** Product ids whose edits may change the description only; empty = no restriction. */
  descriptionOnlyProducts: string[];
  /** The tool the restriction applies to. */
  editTool: string;
}

export function descriptionOnlySchema(productIds: string[]): Record<string, unknown> {
  const ids = productIds.map((p) => (/^\d+$/.test(p) ? Number(p) : p));
  return {
    type: 'object',
    properties: { product_id: { enum: ids } },
    required: ['product_id'],
    // Only the description (and the product it belongs to) may be named: no price, title or stock.
    propertyNames: { enum: ['product_id', 'description'] },
  };
}

export function parseProductIds(text: string): string[] {
  return text
    .split(/[\s,，]+/)
    .map((s) => s.trim())
    .filter((s) => s.length > 0);
}

export function taskRequestFrom(form: TaskForm): CreateTaskRequest {
  const selected = form.selection.filter((s) => s.tools.length > 0);
  const constraints =
    form.descriptionOnlyProducts.length > 0
      ? selected
          .filter((s) => s.tools.includes(form.editTool))
          .map((s) => ({
            authorization_ref: s.authorization_ref,
            tool: form.editTool,
            schema: descriptionOnlySchema(form.descriptionOnlyProducts),
            description: `Description only for products ${form.descriptionOnlyProducts.join(', ')}`,
          }))
      : [];
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
