/**
 * The guidance a declaration carries for the model (`model_guidance`), derived from the compiled
 * operation's ACC `guidance` block and its approval block. Accepts the spellings business systems
 * use — BailingHub's `when_to_use` (its SDKs' `whenToUse` option), `whenToUse`, our `use_when` —
 * and bounds every part (MODEL_GUIDANCE_LIMITS) so a system cannot flood the model's context.
 */
import { MODEL_GUIDANCE_LIMITS as L, type ModelGuidance } from '../../src-shared/hub-api.js';
import type { ApprovalRule, CompiledOperation } from './types.js';

const WHEN_TO_USE = ['when_to_use', 'whenToUse', 'use_when'];
const RETURNS = ['returns'];
const EXAMPLES = ['examples'];
const TAKEN = new Set([...WHEN_TO_USE, ...RETURNS, ...EXAMPLES]);

/** One line, at most `max` characters (an ellipsis marks a cut). */
function clip(text: string, max: number): string {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length <= max ? line : `${line.slice(0, max - 1)}…`;
}

function firstText(g: Record<string, unknown>, keys: readonly string[], max: number): string | null {
  for (const k of keys) {
    const v = g[k];
    if (typeof v === 'string' && v.trim() !== '') return clip(v, max);
  }
  return null;
}

function asText(v: unknown): string | null {
  if (typeof v === 'string') return v.trim() === '' ? null : v;
  if (v === undefined || typeof v === 'function') return null;
  try {
    return JSON.stringify(v) ?? null;
  } catch {
    return null;
  }
}

const OP_WORDS: Readonly<Record<ApprovalRule['op'], string>> = {
  eq: '=',
  neq: '≠',
  gt: '>',
  gte: '≥',
  lt: '<',
  lte: '≤',
  in: 'in',
  contains: 'contains',
  exists: 'is given',
};

function ruleText(rule: ApprovalRule): string {
  if (rule.label) return clip(rule.label, L.rule);
  const name = rule.path.replace(/^\//, '').replace(/\//g, '.');
  const value = rule.op === 'exists' ? '' : ` ${asText(rule.value) ?? ''}`;
  return clip(`${name} ${OP_WORDS[rule.op]}${value}`, L.rule);
}

export function modelGuidance(op: Pick<CompiledOperation, 'guidance' | 'approval'>): ModelGuidance | null {
  const g = op.guidance ?? {};
  const rawExamples = g.examples;
  const examples = (Array.isArray(rawExamples) ? rawExamples : rawExamples === undefined ? [] : [rawExamples])
    .map(asText)
    .filter((x): x is string => x !== null)
    .slice(0, L.examples)
    .map((x) => clip(x, L.example));
  const notes: string[] = [];
  for (const [k, v] of Object.entries(g)) {
    if (TAKEN.has(k) || notes.length >= L.notes) continue;
    const items = Array.isArray(v) ? v : [v];
    const text = items.filter((x): x is string => typeof x === 'string' && x.trim() !== '').join('; ');
    if (text) notes.push(clip(`${k.replace(/_/g, ' ')}: ${text}`, L.note));
  }
  const approvalNeeded = op.approval.required || op.approval.when.length > 0;
  const guidance: ModelGuidance = {
    when_to_use: firstText(g, WHEN_TO_USE, L.text),
    returns: firstText(g, RETURNS, L.text),
    examples,
    notes,
    approval_prompt:
      approvalNeeded && op.approval.prompt ? clip(op.approval.prompt, L.approval_prompt) : null,
    approval_when: op.approval.when.slice(0, L.approval_when).map(ruleText),
  };
  const empty =
    guidance.when_to_use === null &&
    guidance.returns === null &&
    examples.length === 0 &&
    notes.length === 0 &&
    guidance.approval_prompt === null &&
    guidance.approval_when.length === 0;
  return empty ? null : guidance;
}
