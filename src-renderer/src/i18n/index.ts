/** Tiny i18n: English and Simplified Chinese, `{name}` placeholders, state labels per language. */
import type { InvocationState } from '../../../src-shared/states.js';
import { INVOCATION_STATE_LABELS } from '../../../src-shared/states.js';
import { en, type MessageKey, type Messages } from './en.js';
import { zh } from './zh.js';

export type Lang = 'en' | 'zh';
export const LANGS: Record<Lang, Messages> = { en, zh };

export type Translate = (key: MessageKey, params?: Record<string, string | number>) => string;

export function translator(lang: Lang): Translate {
  const table = LANGS[lang];
  return (key, params) => {
    const text = table[key] ?? en[key] ?? key;
    return params
      ? text.replace(/\{(\w+)\}/g, (m, name: string) => (name in params ? String(params[name]) : m))
      : text;
  };
}

const ZH_STATE_LABELS: Record<string, string> = {
  not_dispatched: '未派发',
  awaiting_approval: '等待审批',
  approved: '已批准，尚未执行',
  denied: '已拒绝',
  dispatching: '执行中',
  succeeded: '已完成',
  failed: '失败',
  unknown: '结果待核查',
  unverified: '无法核实',
  validating: '校验中',
  refused: '已拒绝派发',
  pending_dispatch: '等待派发',
};
const EN_EXTRA_LABELS: Record<string, string> = {
  validating: 'Checking',
  refused: 'Refused before dispatch',
  pending_dispatch: 'Saving before dispatch',
};

/** The label of an invocation state (docs/design.md#states) and of a host-side phase, per language. */
export function stateLabel(state: string, lang: Lang): string {
  if (lang === 'zh') return ZH_STATE_LABELS[state] ?? state;
  return (
    (INVOCATION_STATE_LABELS as Record<string, string>)[state as InvocationState] ??
    EN_EXTRA_LABELS[state] ??
    state
  );
}

export { type MessageKey };
