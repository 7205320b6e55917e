/**
 * Settings' MCP tool table and overlay form, as plain functions: where each governed value comes
 * from (the overlay, the server's annotations, the Hub's default — MCP_VALUE_ORIGINS), the form's
 * draft of an overlay (every field may be left unset), and the overlay a draft makes (or the
 * problems that keep it from being sent). docs/mcp.md#the-overlay.
 */
import type { RateWindow } from '../../../src-shared/hub-api.js';
import type { McpOverlayInput, McpToolItem } from '../../../src-shared/ipc/mcp.js';
import type { McpValueOrigin } from '../../../src-shared/states.js';

export type OverlayField =
  | 'effect'
  | 'risk_level'
  | 'approval'
  | 'rate_limit'
  | 'timeout_ms'
  | 'idempotent'
  | 'lookup_tool'
  | 'enabled';

/** Fields whose value, when the overlay leaves them out, is read from the server's annotations. */
const FROM_ANNOTATIONS: ReadonlySet<OverlayField> = new Set([
  'effect',
  'risk_level',
  'approval',
  'idempotent',
]);

export function valueOrigin(tool: Pick<McpToolItem, 'overlay'>, field: OverlayField): McpValueOrigin {
  if (tool.overlay && tool.overlay[field] !== undefined) return 'overlay';
  return FROM_ANNOTATIONS.has(field) ? 'annotations' : 'default';
}

type Tri = '' | 'yes' | 'no';

/** The overlay form's values: '' everywhere means "not set" (annotations or the Hub's default). */
export interface OverlayDraft {
  effect: '' | 'read' | 'write';
  risk_level: '' | 'low' | 'medium' | 'high';
  approval: Tri;
  rate: '' | 'none' | 'set';
  rate_count: string;
  rate_window: RateWindow;
  timeout_ms: string;
  idempotent: Tri;
  /** '' not set, NO_LOOKUP explicitly none, else a tool name. */
  lookup_tool: string;
  enabled: Tri;
  audit_sensitive: Tri;
}

export const NO_LOOKUP = '\u0000none';

const tri = (v: boolean | undefined): Tri => (v === undefined ? '' : v ? 'yes' : 'no');
const fromTri = (v: Tri): boolean | undefined => (v === '' ? undefined : v === 'yes');

export function draftOf(overlay: McpOverlayInput | null): OverlayDraft {
  const o = overlay ?? {};
  return {
    effect: o.effect ?? '',
    risk_level: o.risk_level ?? '',
    approval: tri(o.approval?.required),
    rate: o.rate_limit === undefined ? '' : o.rate_limit === null ? 'none' : 'set',
    rate_count: o.rate_limit ? String(o.rate_limit.count) : '',
    rate_window: o.rate_limit?.window ?? '1m',
    timeout_ms: o.timeout_ms === undefined ? '' : String(o.timeout_ms),
    idempotent: tri(o.idempotent),
    lookup_tool: o.lookup_tool === undefined ? '' : o.lookup_tool === null ? NO_LOOKUP : o.lookup_tool,
    enabled: tri(o.enabled),
    audit_sensitive: tri(o.audit_sensitive),
  };
}

export const OVERLAY_PROBLEM_CODES = ['timeout_invalid', 'rate_count_invalid'] as const;
export type OverlayProblemCode = (typeof OVERLAY_PROBLEM_CODES)[number];

const wholeIn = (text: string, min: number, max: number): number | null => {
  if (!/^\d{1,7}$/.test(text.trim())) return null;
  const n = Number(text.trim());
  return n >= min && n <= max ? n : null;
};

/**
 * The overlay the draft sets, keeping what the form does not edit (an approval's prompt and rules)
 * from the previous overlay; or the problems, each with the control it belongs to.
 */
export function overlayOf(
  draft: OverlayDraft,
  previous: McpOverlayInput | null,
):
  | { ok: true; overlay: McpOverlayInput }
  | { ok: false; problems: { field: string; code: OverlayProblemCode }[] } {
  const problems: { field: string; code: OverlayProblemCode }[] = [];
  const out: McpOverlayInput = {};
  if (draft.effect) out.effect = draft.effect;
  if (draft.risk_level) out.risk_level = draft.risk_level;
  const approval = fromTri(draft.approval);
  if (approval !== undefined) {
    const prev = previous?.approval;
    out.approval = {
      required: approval,
      ...(prev?.prompt !== undefined ? { prompt: prev.prompt } : {}),
      ...(prev?.when !== undefined ? { when: prev.when } : {}),
    };
  }
  if (draft.rate === 'none') out.rate_limit = null;
  else if (draft.rate === 'set') {
    const count = wholeIn(draft.rate_count, 1, 1_000_000);
    if (count === null) problems.push({ field: 'rate_count', code: 'rate_count_invalid' });
    else out.rate_limit = { count, window: draft.rate_window };
  }
  if (draft.timeout_ms.trim() !== '') {
    const ms = wholeIn(draft.timeout_ms, 100, 600_000);
    if (ms === null) problems.push({ field: 'timeout_ms', code: 'timeout_invalid' });
    else out.timeout_ms = ms;
  }
  const idempotent = fromTri(draft.idempotent);
  if (idempotent !== undefined) out.idempotent = idempotent;
  if (draft.lookup_tool === NO_LOOKUP) out.lookup_tool = null;
  else if (draft.lookup_tool !== '') out.lookup_tool = draft.lookup_tool;
  const enabled = fromTri(draft.enabled);
  if (enabled !== undefined) out.enabled = enabled;
  const sensitive = fromTri(draft.audit_sensitive);
  if (sensitive !== undefined) out.audit_sensitive = sensitive;
  return problems.length > 0 ? { ok: false, problems } : { ok: true, overlay: out };
}

/** The annotations a server gave a tool, as `name=value` pairs (hints; shown as data). */
export function annotationPairs(tool: Pick<McpToolItem, 'annotations'>): string[] {
  const a = tool.annotations;
  const out: string[] = [];
  for (const k of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const)
    if (a[k] !== undefined) out.push(`${k}=${String(a[k])}`);
  return out;
}
