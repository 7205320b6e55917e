/**
 * Form fields generated from a tool's JSON Schema (object properties), and the typed arguments
 * object built from the operator's entries. Anything not a plain scalar is edited as JSON.
 */
export type FieldKind = 'string' | 'enum' | 'number' | 'integer' | 'boolean' | 'json';

export interface FormField {
  name: string;
  kind: FieldKind;
  required: boolean;
  description: string | null;
  options: string[];
}

type Schema = Record<string, unknown>;

export function fieldsOf(schema: Schema): FormField[] {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set(Array.isArray(schema.required) ? (schema.required as string[]) : []);
  return Object.entries(props).map(([name, p]) => {
    const type = Array.isArray(p.type)
      ? (p.type as string[]).find((x) => x !== 'null')
      : (p.type as string | undefined);
    let kind: FieldKind = 'json';
    if (Array.isArray(p.enum) && p.enum.every((v) => typeof v === 'string')) kind = 'enum';
    else if (type === 'string') kind = 'string';
    else if (type === 'number') kind = 'number';
    else if (type === 'integer') kind = 'integer';
    else if (type === 'boolean') kind = 'boolean';
    return {
      name,
      kind,
      required: required.has(name),
      description: typeof p.description === 'string' ? p.description : null,
      options: kind === 'enum' ? (p.enum as string[]) : [],
    };
  });
}

export type BuildResult =
  | { ok: true; args: Record<string, unknown> }
  | { ok: false; field: string; problem: 'required' | 'invalid_json' | 'not_a_number' };

/** Builds arguments from raw entries; empty optional fields are left out. */
export function buildArguments(fields: FormField[], raw: Record<string, string | boolean>): BuildResult {
  const args: Record<string, unknown> = {};
  for (const f of fields) {
    const v = raw[f.name];
    if (f.kind === 'boolean') {
      if (typeof v === 'boolean') args[f.name] = v;
      else if (f.required) args[f.name] = false;
      continue;
    }
    const text = typeof v === 'string' ? v.trim() : '';
    if (text === '') {
      if (f.required) return { ok: false, field: f.name, problem: 'required' };
      continue;
    }
    if (f.kind === 'number' || f.kind === 'integer') {
      const n = Number(text);
      if (!Number.isFinite(n) || (f.kind === 'integer' && !Number.isInteger(n)))
        return { ok: false, field: f.name, problem: 'not_a_number' };
      args[f.name] = n;
    } else if (f.kind === 'json') {
      try {
        args[f.name] = JSON.parse(text) as unknown;
      } catch {
        return { ok: false, field: f.name, problem: 'invalid_json' };
      }
    } else {
      args[f.name] = text;
    }
  }
  return { ok: true, args };
}
