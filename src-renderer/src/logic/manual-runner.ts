/**
 * What the manual runner offers: only the tools and fields the conversation's task allows, a read
 * chosen first (a search never pre-selects a write), and the exact request a write will send
 * shown before it is confirmed.
 */
import type { TaskView } from '../../../src-shared/hub-api.js';
import type { ToolView } from '../../../src-shared/ipc/views.js';
import type { FormField } from './schema-form.js';

type Boundary = Pick<TaskView, 'boundary'>;

/** The tools the task's boundary names (all of them without a task). */
export function toolsAllowed(tools: readonly ToolView[], task: Boundary | null): ToolView[] {
  if (!task) return [...tools];
  return tools.filter((t) =>
    task.boundary.authorizations.some(
      (a) => a.authorization_ref === t.authorization_ref && a.tools.includes(t.tool),
    ),
  );
}

/**
 * The argument names a task's constraints let this tool name: the intersection of each applying
 * constraint's `propertyNames.enum` (or its properties when it forbids additional ones); null when
 * no constraint restricts the names.
 */
export function namesAllowed(
  tool: Pick<ToolView, 'tool' | 'authorization_ref'>,
  task: Boundary | null,
): Set<string> | null {
  if (!task) return null;
  let allowed: Set<string> | null = null;
  for (const c of task.boundary.constraints) {
    if (c.tool !== tool.tool) continue;
    if (c.authorization_ref !== null && c.authorization_ref !== tool.authorization_ref) continue;
    const names = namesOf(c.schema);
    if (!names) continue;
    const before: Set<string> | null = allowed;
    allowed = before ? new Set([...before].filter((n: string) => names.has(n))) : names;
  }
  return allowed;
}

function namesOf(schema: Record<string, unknown>): Set<string> | null {
  const pn = schema.propertyNames as { enum?: unknown } | undefined;
  if (pn && Array.isArray(pn.enum)) return new Set(pn.enum.filter((x): x is string => typeof x === 'string'));
  if (schema.additionalProperties === false && schema.properties && typeof schema.properties === 'object')
    return new Set(Object.keys(schema.properties));
  return null;
}

/** The form fields the task lets the operator fill for this tool. */
export function fieldsAllowed(fields: readonly FormField[], allowed: Set<string> | null): FormField[] {
  return allowed ? fields.filter((f) => allowed.has(f.name)) : [...fields];
}

/** The tool a search selects first: the best-ranked read; never a write (the operator picks one). */
export function preselected(tools: readonly ToolView[]): string {
  return tools.find((t) => t.effect === 'read')?.function_name ?? '';
}

export interface ConstraintBreach {
  /** `name`: the task does not let this tool name the argument; `value`: not one of the values it allows. */
  kind: 'name' | 'value';
  field: string;
}

/**
 * Which arguments of a call break its task's constraints, read from the constraints' JSON Schema
 * (`propertyNames.enum` and `properties.<field>.enum`), so a refusal can name the argument and the
 * rule ("`price` may not be changed in this task") instead of a validator's sentence.
 */
export function constraintBreaches(
  tool: Pick<ToolView, 'tool' | 'authorization_ref'>,
  args: Record<string, unknown>,
  task: Boundary | null,
): ConstraintBreach[] {
  if (!task) return [];
  const out: ConstraintBreach[] = [];
  const allowed = namesAllowed(tool, task);
  if (allowed)
    for (const name of Object.keys(args)) if (!allowed.has(name)) out.push({ kind: 'name', field: name });
  for (const c of task.boundary.constraints) {
    if (c.tool !== tool.tool) continue;
    if (c.authorization_ref !== null && c.authorization_ref !== tool.authorization_ref) continue;
    const props = (c.schema.properties ?? {}) as Record<string, { enum?: unknown }>;
    for (const [field, p] of Object.entries(props)) {
      if (!Array.isArray(p.enum) || !(field in args)) continue;
      if (!p.enum.some((v) => v === args[field]) && !out.some((b) => b.field === field))
        out.push({ kind: 'value', field });
    }
  }
  return out;
}
