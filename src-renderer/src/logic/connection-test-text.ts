/**
 * Settings' Test connection result as sentences in the current language, from its codes (never
 * from the provider's English): the completion's outcome first, then what the model list said and
 * which key was sent. The provider's own words are kept beside a failure as its detail.
 */
import type { ConnectionTestView } from '../../../src-shared/ipc/views.js';
import type { MessageKey, Translate } from '../i18n/index.js';
import { en } from '../i18n/en.js';

type Failure = NonNullable<ConnectionTestView['completion']['failure']>;

export interface ConnectionWords {
  ok: boolean;
  lines: string[];
  /** The provider's own words for the failure shown first (null when there is none). */
  detail: string | null;
}

function reason(f: Failure, t: Translate): string {
  const key = `connTest.code.${f.code}`;
  return key in en ? t(key as MessageKey, { status: f.status ?? '?' }) : t('connTest.code.other');
}

export function connectionWords(r: ConnectionTestView, model: string, t: Translate): ConnectionWords {
  const lines: string[] = [];
  let detail: string | null = null;
  const ok = r.completion.state === 'ok';
  if (ok) lines.push(t('connTest.ok', { model }));
  else if (r.completion.failure) {
    lines.push(t('connTest.failed', { reason: reason(r.completion.failure, t) }));
    detail = r.completion.failure.detail || null;
  }
  if (r.models.state === 'listed') {
    lines.push(t('connTest.listed', { count: r.models.ids.length }));
    if (r.model_listed === false && model) lines.push(t('connTest.notListed', { model }));
  } else if (r.models.state === 'not_offered') lines.push(t('connTest.noList'));
  else if (r.models.failure) {
    lines.push(t('connTest.listFailed', { reason: reason(r.models.failure, t) }));
    detail ??= r.models.failure.detail || null;
  }
  if (r.completion.state === 'skipped' && !model) lines.push(t('connTest.noModel'));
  lines.push(t(`connTest.key.${r.key_used}`));
  return { ok, lines, detail };
}
