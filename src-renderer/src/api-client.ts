/** Unwraps result envelopes into values or thrown coded errors, for stores and components. */
import type { AppErrorData } from '../../src-shared/errors.js';
import type { BailingApi } from '../../src-shared/ipc/api.js';
import type { CallInput, CallName, CallOutput } from '../../src-shared/ipc/contract.js';
import { apiErrorText } from './logic/feedback-text.js';
import { useApp } from './store/app.js';

/** A call the main process (or the transport) refused, with its coded error as it came. */
export class ApiError extends Error {
  constructor(readonly data: AppErrorData) {
    super(data.message);
    this.name = 'ApiError';
  }

  get code(): string {
    return this.data.code;
  }
}

let current: BailingApi | null = null;

export function setApi(api: BailingApi): void {
  current = api;
}

export function getApi(): BailingApi {
  if (!current) throw new Error('API not set');
  return current;
}

export async function call<K extends CallName>(name: K, input: CallInput<K>): Promise<CallOutput<K>> {
  const fn = getApi()[name] as unknown as (
    i: CallInput<K>,
  ) => Promise<{ ok: true; value: CallOutput<K> } | { ok: false; error: AppErrorData }>;
  const r = await fn(input);
  if (!r.ok) throw new ApiError(r.error);
  return r.value;
}

/**
 * A failed call's error as one line in the current language: worded from its code (and the Hub's
 * own code and words when it carries them), or its message as it came for a code the renderer has
 * no words for (logic/feedback-text.ts apiErrorWords). Anything else thrown shows its message.
 */
export const errorText = (err: unknown): string => {
  if (err instanceof ApiError) return apiErrorText(err.data, useApp.getState().lang);
  return err instanceof Error ? err.message : String(err);
};
