/** The words for attachment sizes and for the composer's refusals, in the current language. */
import { MAX_PAYLOAD_BYTES } from '../../../src-shared/ipc/contract.js';
import { MAX_ATTACHMENT_CHARS, MAX_ATTACHMENTS } from '../../../src-shared/ipc/views.js';
import type { Translate } from '../i18n/index.js';
import { MAX_NAME_CHARS, type Refusal } from './attachments.js';

/** A size in bytes as "812 bytes" or "58.6 KB" (one decimal, none when whole). */
export function sizeText(bytes: number, t: Translate): string {
  if (bytes < 1024) return t('attach.sizeBytes', { n: bytes });
  return t('attach.sizeKb', { n: Number((bytes / 1024).toFixed(1)) });
}

/** One refusal as a sentence naming the file and the limit it broke. */
export function refusalText(r: Refusal, t: Translate): string {
  const name = r.name;
  switch (r.code) {
    case 'type':
      return t('attach.refused.type', { name });
    case 'too_long':
      return t('attach.refused.too_long', { name, max: MAX_ATTACHMENT_CHARS });
    case 'too_many':
      return t('attach.refused.too_many', { name, max: MAX_ATTACHMENTS });
    case 'nul':
      return t('attach.refused.nul', { name });
    case 'name':
      return t('attach.refused.name', { name, max: MAX_NAME_CHARS });
    case 'unreadable':
      return t('attach.refused.unreadable', { name, detail: String(r.detail ?? '') });
    case 'payload': {
      const size = sizeText(typeof r.detail === 'number' ? r.detail : 0, t);
      const max = sizeText(MAX_PAYLOAD_BYTES, t);
      return name
        ? t('attach.refused.payload', { name, size, max })
        : t('attach.refused.payloadSend', { size, max });
    }
  }
}
