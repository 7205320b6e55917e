/**
 * What a call card shows of a call besides its state: the arguments it was made with, the result
 * that came back (or why not), the key arguments that tell two cards of one tool apart, and — when
 * a person settled it — the operator's attestation. One derivation, used by the main process when
 * it builds a card (live, after a manual run, rebuilt from the archive) and by the renderer when a
 * live receipt arrives, so a card reads the same whichever way it got its facts.
 *
 * Bounded: the texts are cut (with a mark) so a conversation of many calls stays small. An
 * audit-sensitive operation shows neither arguments nor result (`masked`), as the Hub keeps them
 * out of its audit.
 */
import type { Receipt } from './hub-api.js';
import {
  ATTESTATION_OUTCOMES,
  OPERATOR_ATTESTED,
  type AttestationOutcome,
  type InvocationState,
} from './states.js';

/** Characters of a card's argument text and of its result text. */
export const MAX_CARD_ARGUMENTS_CHARS = 8_000;
export const MAX_CARD_RESULT_CHARS = 16_000;
/** Key arguments in a card's one-line summary, and the characters of each value there. */
export const MAX_KEY_ARGUMENTS = 3;
const MAX_KEY_VALUE_CHARS = 40;

/** Pretty JSON, cut to `max` characters with a trailing mark. */
export function boundedJsonText(value: unknown, max: number): { text: string; cut: boolean } {
  let text: string;
  try {
    text = JSON.stringify(value, null, 2) ?? 'null';
  } catch {
    text = String(value);
  }
  if (text.length <= max) return { text, cut: false };
  return { text: `${text.slice(0, max - 1)}…`, cut: true };
}

/** Names that identify what a call is about come first in its summary (ids, SKUs, the channel). */
const IDENTIFYING = /(^|_)(id|sku|shop|channel|query|account|order|code|name)$/;

/**
 * Up to three scalar arguments for the card's one-line summary ("product_id 42 · channel web"):
 * identifying names first, then the others in their order; long values are cut.
 */
export function keyArguments(args: Record<string, unknown> | null): Array<{ name: string; value: string }> {
  if (!args) return [];
  const scalars = Object.entries(args).filter(
    ([, v]) => typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean',
  );
  const ordered = [
    ...scalars.filter(([k]) => IDENTIFYING.test(k)),
    ...scalars.filter(([k]) => !IDENTIFYING.test(k)),
  ];
  return ordered.slice(0, MAX_KEY_ARGUMENTS).map(([name, v]) => {
    const s = String(v).replace(/\s+/g, ' ');
    return { name, value: s.length > MAX_KEY_VALUE_CHARS ? `${s.slice(0, MAX_KEY_VALUE_CHARS - 1)}…` : s };
  });
}

/** The arguments of a call from the text it was made with (null when masked, absent or not an object). */
export function parseArguments(text: string | null | undefined): Record<string, unknown> | null {
  if (typeof text !== 'string' || text.trim() === '') return null;
  try {
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

export interface Settlement {
  outcome: AttestationOutcome;
  note: string;
  at: string;
}

/** The operator's attestation that settled this call, if a person settled it. */
export function settlementOf(
  r: Pick<Receipt, 'state' | 'reason_code' | 'reconciliation'>,
): Settlement | null {
  if (r.reason_code !== OPERATOR_ATTESTED) return null;
  const e = [...r.reconciliation].reverse().find((x) => x.source === OPERATOR_ATTESTED);
  if (!e || !(ATTESTATION_OUTCOMES as readonly string[]).includes(e.outcome)) return null;
  return { outcome: e.outcome as AttestationOutcome, note: e.detail, at: e.checked_at };
}

/** What a receipt adds to a card: its state, result, reason and settlement. */
export interface ReceiptFacts {
  state: InvocationState;
  result_json: string | null;
  result_truncated: boolean;
  reason: { code: string; message: string | null } | null;
  settlement: Settlement | null;
}

export function receiptFacts(r: Receipt, masked: boolean): ReceiptFacts {
  const settlement = settlementOf(r);
  const hasResult = !masked && r.result !== null && r.result !== undefined;
  const shown = hasResult ? boundedJsonText(r.result, MAX_CARD_RESULT_CHARS) : null;
  return {
    state: r.state,
    result_json: shown?.text ?? null,
    result_truncated: hasResult && (r.result_truncated || (shown?.cut ?? false)),
    // A refusal's reason is the call's feedback already; a person's settlement is shown as such.
    reason:
      r.reason_code && r.state !== 'not_dispatched' && !settlement
        ? { code: r.reason_code, message: r.reason_message }
        : null,
    settlement,
  };
}
