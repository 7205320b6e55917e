/**
 * Settings' "Test connection": lists the provider's models (`GET /models`, where it has one), then
 * sends a one-token completion to the chosen model. No retry (the operator is waiting for an
 * answer, and a 429 is itself the answer). Every failure is a code the renderer words; the
 * provider's own words come along, bounded (the caller masks secrets).
 */
import { APIError } from 'openai';
import { redactPayload } from '../../archive/index.js';
import type { ProviderQuirks } from '../../../src-shared/model-providers.js';
import type { ConnectionTestListState, ConnectionTestStepState } from '../../../src-shared/states.js';
import { classifyFailure, type ModelErrorCode } from './model-errors.js';
import { wholeRequest } from './request-params.js';
import { sdkClient } from './sdk-client.js';

export interface ConnectionTestInput {
  baseUrl: string;
  model: string | null;
  apiKey: string | null;
  quirks: ProviderQuirks;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Known secret values: masked in the provider's words before they are returned. */
  secrets?: readonly string[];
}

export interface ConnectionStepFailure {
  code: ModelErrorCode;
  status: number | null;
  detail: string;
}

export interface ConnectionTestResult {
  /** `listed`: the provider listed its models; `not_offered`: it has no model list (404); `failed`: see `failure`. */
  models: {
    state: ConnectionTestListState;
    ids: string[];
    failure: ConnectionStepFailure | null;
  };
  /** `skipped`: no model chosen, or the model list already failed on the key. */
  completion: { state: ConnectionTestStepState; failure: ConnectionStepFailure | null };
  /** Whether the chosen model is in the list (null when there is no list or no model). */
  modelListed: boolean | null;
}

const MAX_MODELS = 500;

function failureOf(err: unknown, secrets: readonly string[]): ConnectionStepFailure {
  const f = classifyFailure(err);
  // The provider's words may echo a key: every secret the caller knows is masked.
  return { code: f.code, status: f.status, detail: String(redactPayload(f.detail, secrets)).slice(0, 1000) };
}

export async function testModelConnection(input: ConnectionTestInput): Promise<ConnectionTestResult> {
  const client = sdkClient(input.baseUrl, input.apiKey, input.timeoutMs ?? 15_000);
  const opts = input.signal ? { signal: input.signal } : {};
  let models: ConnectionTestResult['models'];
  try {
    const ids: string[] = [];
    for await (const m of client.models.list(opts)) {
      if (typeof m.id === 'string') ids.push(m.id);
      if (ids.length >= MAX_MODELS) break;
    }
    models = { state: 'listed', ids: ids.sort(), failure: null };
  } catch (err) {
    models =
      err instanceof APIError && (err.status === 404 || err.status === 405)
        ? { state: 'not_offered', ids: [], failure: null }
        : { state: 'failed', ids: [], failure: failureOf(err, input.secrets ?? []) };
  }
  const keyRefused =
    models.failure?.code === 'model_auth_failed' || models.failure?.code === 'model_forbidden';
  const modelListed = models.state === 'listed' && input.model ? models.ids.includes(input.model) : null;
  if (!input.model || keyRefused)
    return { models, completion: { state: 'skipped', failure: null }, modelListed };
  try {
    await client.chat.completions.create(
      wholeRequest({
        model: input.model,
        messages: [{ role: 'user', content: 'ping' }],
        tools: [],
        quirks: input.quirks,
        maxTokens: 1,
      }),
      opts,
    );
    return { models, completion: { state: 'ok', failure: null }, modelListed };
  } catch (err) {
    return {
      models,
      completion: { state: 'failed', failure: failureOf(err, input.secrets ?? []) },
      modelListed,
    };
  }
}
