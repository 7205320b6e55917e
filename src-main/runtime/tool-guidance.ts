/**
 * The function description a model reads for a business tool: the declaration's description, its
 * system and account, effect and approval, then the declaration's guidance (ACC `guidance` block:
 * when to use it, when not, what it returns, restrictions, examples) and the approval prompt — so
 * the model picks the right tool and fills arguments the way the business system documents them.
 * Bounded: OpenAI refuses a function description over 1,024 characters, so the parts that matter
 * most come first and each part has its own share; whatever does not fit is cut with "…".
 */
import type { Declaration } from '../../src-shared/hub-api.js';

export const MAX_TOOL_DESCRIPTION = 1024;
const MAX_PART = 300;
const MAX_EXAMPLES = 3;

/** Guidance keys and their labels, in the order the model reads them (synonyms in one line). */
const GUIDANCE_PARTS: readonly { keys: readonly string[]; label: string }[] = [
  { keys: ['when_to_use', 'whenToUse', 'use_when'], label: 'When to use' },
  { keys: ['when_not_to_use', 'avoid_when'], label: 'Avoid when' },
  { keys: ['returns', 'result'], label: 'Returns' },
  { keys: ['restrictions'], label: 'Restrictions' },
  { keys: ['arguments', 'argument_notes'], label: 'Arguments' },
  { keys: ['note', 'notes'], label: 'Note' },
];
const EXAMPLE_KEYS = ['examples', 'example'];
const KNOWN = new Set([...GUIDANCE_PARTS.flatMap((p) => p.keys), ...EXAMPLE_KEYS, 'approval_prompt']);

/** One line of text: control characters and runs of whitespace become single spaces. */
function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f\s]+/g, ' ').trim();
}

function cut(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

function textOf(value: unknown): string | null {
  if (typeof value === 'string') return clean(value) || null;
  if (Array.isArray(value)) {
    const parts = value.map(textOf).filter((v): v is string => v !== null);
    return parts.length > 0 ? parts.join('; ') : null;
  }
  return null;
}

/** An example as the model can use it: its description and its arguments as compact JSON. */
function exampleOf(value: unknown): string | null {
  if (typeof value === 'string') return clean(value) || null;
  if (!value || typeof value !== 'object') return null;
  const e = value as Record<string, unknown>;
  const about = textOf(e.description ?? e.summary ?? e.title);
  const args = e.arguments ?? e.input ?? e.args;
  // BailingHub's SDKs write an example as the arguments object itself.
  const json = args !== undefined ? JSON.stringify(args) : about ? null : JSON.stringify(e);
  if (!about && !json) return null;
  return [about, json].filter(Boolean).join(': ');
}

function guidanceLines(
  guidance: Record<string, unknown> | null,
  approvalPrompt: string | null,
  approvalWhen: readonly string[],
): string[] {
  const g = guidance ?? {};
  const lines: string[] = [];
  for (const part of GUIDANCE_PARTS) {
    const text = part.keys.map((k) => textOf(g[k])).find((t) => t !== null);
    if (text) lines.push(`${part.label}: ${cut(text, MAX_PART)}`);
  }
  const prompt = textOf(g.approval_prompt) ?? (approvalPrompt ? clean(approvalPrompt) : null);
  if (prompt) lines.push(`Approval prompt: ${cut(prompt, MAX_PART)}`);
  const when = textOf([...approvalWhen]);
  if (when) lines.push(`Approval needed when: ${cut(when, MAX_PART)}`);
  const raw = EXAMPLE_KEYS.map((k) => g[k]).find((v) => v !== undefined);
  const examples = (Array.isArray(raw) ? raw : raw !== undefined ? [raw] : [])
    .slice(0, MAX_EXAMPLES)
    .map(exampleOf)
    .filter((e): e is string => e !== null)
    .map((e) => cut(e, MAX_PART));
  if (examples.length > 0) lines.push(`Examples: ${examples.join(' | ')}`);
  // Other guidance the system published as text, under its own name.
  for (const [k, v] of Object.entries(g)) {
    if (KNOWN.has(k)) continue;
    const text = textOf(v);
    if (text) lines.push(`${clean(k).replace(/_/g, ' ').slice(0, 40)}: ${cut(text, MAX_PART)}`);
  }
  return lines;
}

export function toolDescription(d: Declaration): string {
  const head = [
    cut(clean(d.description), 400),
    `System: ${clean(d.system_name)} (${d.system_id}), account ${d.account}.`,
    `Effect: ${d.effect}${d.idempotent ? ', idempotent' : ''}.${d.approval.required ? ' Requires human approval before it runs.' : ''}`,
  ].join('\n');
  let out = head;
  // Approval may apply when it is required or a rule of the system may ask for it (its labels come
  // worded by the Hub in model_guidance.approval_when).
  const mayNeedApproval = d.approval.required || d.approval.when.length > 0;
  const lines = guidanceLines(
    d.guidance,
    mayNeedApproval ? d.approval.prompt : null,
    d.model_guidance?.approval_when ?? [],
  );
  for (const line of lines) {
    const next = `${out}\n${line}`;
    if (next.length > MAX_TOOL_DESCRIPTION) {
      const room = MAX_TOOL_DESCRIPTION - out.length - 1;
      if (room > 20) out = `${out}\n${cut(line, room)}`;
      break;
    }
    out = next;
  }
  return cut(out, MAX_TOOL_DESCRIPTION);
}
