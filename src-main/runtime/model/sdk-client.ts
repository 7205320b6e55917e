/**
 * A fresh `openai` SDK client per request (the key is never kept beyond it). SDK retries are off:
 * model requests are retried by ../model-client.ts, which can show each wait and be cancelled.
 * Without a key no Authorization header is sent at all (not a placeholder), and nothing is taken
 * from the process environment (OPENAI_ORG_ID, OPENAI_PROJECT_ID would go to any provider).
 */
import OpenAI from 'openai';

export function sdkClient(baseUrl: string, apiKey: string | null, timeoutMs: number): OpenAI {
  return new OpenAI({
    baseURL: baseUrl,
    apiKey: apiKey ?? 'no-key-configured',
    organization: null,
    project: null,
    maxRetries: 0,
    timeout: timeoutMs,
    // This code runs in the main process only (the renderer cannot import src-main); tests that host
    // the main process next to a DOM (jsdom) would otherwise make the SDK refuse to start.
    dangerouslyAllowBrowser: true,
    ...(apiKey ? {} : { defaultHeaders: { Authorization: null } }),
  });
}
