/**
 * The model client: the real `openai` SDK against any OpenAI-compatible base URL, streaming (or
 * whole completions where the provider is set so), cancellable with an AbortSignal. Settings and
 * the API key are read from the caller's provider for each request; nothing is stored here.
 *
 * A request that fails with 429, 500–504, 408 or a connection error before any token arrived is
 * retried (./model/retry-policy.ts), honouring retry-after / retry-after-ms, each wait reported
 * through `onRetry` and cut short by the signal. A retry repeats the model request only: tool calls
 * are executed by the turn, and only from a completed reply. 401/403/404 end at once with a code.
 * A stream that breaks after text arrived is not retried: the partial reply comes back marked
 * `interrupted`, its tool calls dropped. A stream that goes silent (nothing for `streamIdleMs`) is
 * ended by the client: before any token it is retried like a timeout, after one it is interrupted
 * (`model_stream_interrupted`, saying how long the provider was silent), the text shown so far kept.
 * A whole (non-streaming) completion must arrive completely within the request timeout.
 */
import { APIConnectionTimeoutError } from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import { providerQuirks, type ProviderQuirks } from '../../src-shared/model-providers.js';
import type { MessageFinishState } from '../../src-shared/states.js';
import type { ModelSettings, ModelSettingsProvider } from './desk-runtime.js';
import {
  classifyFailure,
  isAbort,
  ModelRequestError,
  ModelStreamStalledError,
  type ModelErrorCode,
  type RetryReason,
} from './model/model-errors.js';
import { DEFAULT_RETRY_POLICY, nextRetry, type RetryPolicy } from './model/retry-policy.js';
import { streamingRequest, wholeRequest } from './model/request-params.js';
import { sdkClient } from './model/sdk-client.js';
import {
  createStreamAssembler,
  replyOfCompletion,
  type AssembledReply,
  type ModelUsage,
  type ReasoningField,
} from './model/stream-assembler.js';

export { ModelRequestError, type ModelErrorCode, type ModelUsage, type ReasoningField, type RetryReason };

export interface ModelToolCall {
  /** The provider's id ('' when it gave none). */
  id: string;
  name: string;
  argumentsText: string;
}

export interface ModelReply {
  text: string;
  reasoning: { field: ReasoningField; text: string } | null;
  toolCalls: ModelToolCall[];
  /** A MessageFinishState, or what the provider said (e.g. `content_filter`). */
  finishReason: MessageFinishState | string;
  usage: ModelUsage | null;
  /** The stream broke after some of the reply arrived: what came is kept, its tool calls are not. */
  interrupted: { code: ModelErrorCode; detail: string } | null;
}

/** What the history needs to know of the provider: whether and how reasoning goes back. */
export interface HistoryOptions {
  reasoningSendBack: ProviderQuirks['reasoningSendBack'];
  reasoningField: ReasoningField;
}

export interface RetryNotice {
  /** 1 for the first retry. */
  attempt: number;
  maxAttempts: number;
  waitMs: number;
  reason: RetryReason;
  status: number | null;
  /** The wait is the provider's own (retry-after), not our backoff. */
  fromProvider: boolean;
}

export interface ModelRequest {
  /** The conversation as the provider should see it (built per request, with the provider's reasoning rule). */
  history(opts: HistoryOptions): ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  signal: AbortSignal;
  onDelta?: (text: string) => void;
  onReasoningDelta?: (text: string, field: ReasoningField) => void;
  /** Called before each wait between attempts (the caller records and shows it). */
  onRetry?: (notice: RetryNotice) => void;
}

export interface ModelClient {
  complete(req: ModelRequest): Promise<ModelReply>;
}

export interface ModelClientOptions {
  /** Until the provider's answer starts (the SDK's timeout); a whole completion's last byte too. */
  timeoutMs?: number;
  /** Longest silence inside an open stream before the client ends it (default: `timeoutMs`). */
  streamIdleMs?: number;
  retry?: Partial<RetryPolicy>;
}

const DEFAULT_TIMEOUT_MS = 120_000;

export function quirksOf(s: ModelSettings): ProviderQuirks {
  return s.quirks ?? providerQuirks('custom', { stream: s.stream ?? true });
}

export function createModelClient(
  settings: ModelSettingsProvider,
  opts: ModelClientOptions = {},
): ModelClient {
  const policy: RetryPolicy = { ...DEFAULT_RETRY_POLICY, ...opts.retry };
  return {
    async complete(outer) {
      // A child signal per request, so SDK listeners never pile up on the turn's signal.
      const child = new AbortController();
      const relay = () => child.abort(outer.signal.reason);
      if (outer.signal.aborted) child.abort(outer.signal.reason);
      else outer.signal.addEventListener('abort', relay, { once: true });
      try {
        return await completeWithRetries({ ...outer, signal: child.signal });
      } finally {
        outer.signal.removeEventListener('abort', relay);
      }
    },
  };

  async function completeWithRetries(req: ModelRequest): Promise<ModelReply> {
    const s = await settings.get();
    if (!s.baseUrl || !s.model)
      throw new ModelRequestError('model_not_configured', 'no base URL or model is set');
    const quirks = quirksOf(s);
    const messages = req.history({
      reasoningSendBack: quirks.reasoningSendBack,
      reasoningField: quirks.reasoningField,
    });
    let waited = 0;
    for (let retry = 1; ; retry++) {
      try {
        // Only failures before any token arrived get here: a stream that breaks later comes back
        // as an interrupted reply and is never retried.
        return await attempt(s, quirks, messages, req);
      } catch (err) {
        if (req.signal.aborted || isAbort(err)) throw err;
        const f = classifyFailure(err);
        if (f.retry === null) throw new ModelRequestError(f.code, f.detail, f.status);
        const next = nextRetry(policy, retry, f.askedMs, waited);
        if (!next.retry) {
          const asked =
            next.askedMs !== null ? ` (the provider asked to wait ${Math.ceil(next.askedMs / 1000)} s)` : '';
          const tries = next.because === 'attempts' ? ` after ${policy.maxRetries} retries` : '';
          throw new ModelRequestError(f.code, `${f.detail}${tries}${asked}`, f.status);
        }
        req.onRetry?.({
          attempt: retry,
          maxAttempts: policy.maxRetries,
          waitMs: next.waitMs,
          reason: f.retry,
          status: f.status,
          fromProvider: next.fromProvider,
        });
        await abortableSleep(next.waitMs, req.signal);
        waited += next.waitMs;
      }
    }
  }

  /**
   * A whole completion within `timeoutMs` from the request to its last byte: the SDK's own timeout
   * stops counting once the headers arrive, and a body that never completes would hang the turn.
   * Past the bound it fails as a timeout (retried: nothing of it was shown).
   */
  async function wholeCompletion(
    client: ReturnType<typeof sdkClient>,
    body: ReturnType<typeof wholeRequest>,
    signal: AbortSignal,
  ) {
    const ms = opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), ms);
    try {
      return await client.chat.completions.create(body, {
        signal: AbortSignal.any([signal, deadline.signal]),
      });
    } catch (err) {
      if (deadline.signal.aborted && !signal.aborted)
        throw new APIConnectionTimeoutError({ message: `the reply did not complete within ${ms} ms` });
      throw err;
    } finally {
      clearTimeout(timer);
    }
  }

  async function attempt(
    s: ModelSettings,
    quirks: ProviderQuirks,
    messages: ChatCompletionMessageParam[],
    req: ModelRequest,
  ): Promise<ModelReply> {
    const client = sdkClient(s.baseUrl, s.apiKey, opts.timeoutMs ?? DEFAULT_TIMEOUT_MS);
    const input = {
      model: s.model,
      messages,
      tools: req.tools,
      quirks,
      ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
    };
    if (!quirks.stream) {
      const r = await wholeCompletion(client, wholeRequest(input), req.signal);
      const reply = replyOfCompletion(r);
      if (reply.reasoning?.text) req.onReasoningDelta?.(reply.reasoning.text, reply.reasoning.field);
      if (reply.text) req.onDelta?.(reply.text);
      return finished(reply);
    }
    const assembler = createStreamAssembler({
      onText: (d) => req.onDelta?.(d),
      onReasoning: (d, field) => req.onReasoningDelta?.(d, field),
    });
    const stream = await client.chat.completions.create(streamingRequest(input), { signal: req.signal });
    const idleMs = opts.streamIdleMs ?? opts.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const idle = idleWatch(idleMs, () => stream.controller.abort());
    try {
      for await (const chunk of stream) {
        idle.touch();
        assembler.push(chunk);
      }
    } catch (err) {
      if (req.signal.aborted) return { ...finished(assembler.result()), finishReason: 'cancelled' };
      if (idle.fired()) return stalled(assembler, idleMs);
      if (isAbort(err)) return { ...finished(assembler.result()), finishReason: 'cancelled' };
      if (!assembler.tokensArrived()) throw err;
      return interrupted(assembler.result(), 'model_stream_interrupted', classifyFailure(err).detail);
    } finally {
      idle.stop();
    }
    const reply = assembler.result();
    if (req.signal.aborted) return { ...finished(reply), finishReason: 'cancelled' };
    // The SDK ends the iteration quietly when its stream is aborted: the idle bound did that.
    if (idle.fired()) return stalled(assembler, idleMs);
    if (reply.finishReason === null)
      return interrupted(reply, 'model_stream_incomplete', 'the stream ended without a finish reason');
    return finished(reply);
  }
}

/** A silent stream: retried (thrown) if nothing arrived yet, else what arrived, interrupted. */
function stalled(
  assembler: { tokensArrived(): boolean; result(): AssembledReply },
  idleMs: number,
): ModelReply {
  const err = new ModelStreamStalledError(idleMs);
  if (!assembler.tokensArrived()) throw err;
  return interrupted(assembler.result(), 'model_stream_interrupted', err.message);
}

/** Calls `onIdle` once when `touch` has not been called for `ms`. */
function idleWatch(ms: number, onIdle: () => void) {
  let fired = false;
  const timer = setTimeout(() => {
    fired = true;
    onIdle();
  }, ms);
  return {
    touch: () => void timer.refresh(),
    stop: () => clearTimeout(timer),
    fired: () => fired,
  };
}

function finished(r: AssembledReply): ModelReply {
  return { ...r, finishReason: r.finishReason ?? 'stop', interrupted: null };
}

function interrupted(r: AssembledReply, code: ModelErrorCode, detail: string): ModelReply {
  return { ...r, toolCalls: [], finishReason: 'error', interrupted: { code, detail } };
}

function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason ?? new Error('aborted'));
      return;
    }
    const t = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(t);
      reject(signal.reason ?? new Error('aborted'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}
