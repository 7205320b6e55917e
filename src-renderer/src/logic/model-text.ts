/**
 * Words for what the model provider did in a turn: a retry wait (the provider's own or our
 * backoff), the tokens a turn used, and why a reply broke off (from its code; the provider's own
 * words are kept beside the sentence).
 */
import type { ConversationItem } from '../../../src-shared/ipc/views.js';
import type { Translate } from '../i18n/index.js';

type RetryItem = Extract<ConversationItem, { kind: 'model_retry' }>;
type UsageItem = Extract<ConversationItem, { kind: 'turn_usage' }>;

/** Seconds as an operator reads them: whole seconds from 1 s up, one decimal below. */
export function seconds(ms: number): string {
  return ms >= 1000 ? String(Math.round(ms / 1000)) : (Math.max(ms, 0) / 1000).toFixed(1);
}

export function retryText(item: RetryItem, t: Translate): string {
  const p = { seconds: seconds(item.wait_ms), attempt: item.attempt, max: item.max_attempts };
  switch (item.reason) {
    case 'rate_limited':
      return t(item.from_provider ? 'retry.rate_limited.provider' : 'retry.rate_limited.backoff', p);
    case 'server_error':
      return t('retry.server_error', {
        ...p,
        status: item.status !== null ? t('retry.status', { status: item.status }) : '',
      });
    case 'connection':
      return t('retry.connection', p);
    case 'timeout':
      return t('retry.timeout', p);
  }
}

export function usageText(item: UsageItem, t: Translate, lang: string): string {
  const n = (x: number) => x.toLocaleString(lang === 'zh' ? 'zh-CN' : 'en-US');
  const base = t('conv.usage', {
    prompt: n(item.prompt_tokens),
    completion: n(item.completion_tokens),
    total: n(item.total_tokens),
  });
  return item.reasoning_tokens
    ? base + t('conv.usageReasoning', { reasoning: n(item.reasoning_tokens) })
    : base;
}
