/**
 * Assembles a model reply from chat-completion chunks as real servers send them: tool-call deltas
 * matched by index (a new id at an index already in use starts another call), a function name that
 * repeats in later chunks is not concatenated, arguments arrive in any split, chunks with empty
 * `choices` and usage-only chunks are fine, reasoning comes as `reasoning_content` (DeepSeek, Qwen,
 * vLLM) or `reasoning` (OpenRouter, Ollama). Also reads a whole (non-streamed) completion.
 */
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';

export type ReasoningField = 'reasoning_content' | 'reasoning';

export interface ModelUsage {
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
  /** Reasoning tokens when the provider reports them (`completion_tokens_details.reasoning_tokens`). */
  reasoning_tokens: number | null;
}

export interface AssembledToolCall {
  /** The provider's id for the call ('' when it gave none: the turn makes a short one). */
  id: string;
  name: string;
  argumentsText: string;
}

export interface AssembledReply {
  text: string;
  reasoning: { field: ReasoningField; text: string } | null;
  toolCalls: AssembledToolCall[];
  /** null when the stream ended without saying why (an incomplete reply). */
  finishReason: string | null;
  usage: ModelUsage | null;
}

export interface StreamAssembler {
  push(chunk: ChatCompletionChunk): void;
  /** Whether any text, reasoning or tool-call delta arrived (a request failing after that is not retried). */
  tokensArrived(): boolean;
  result(): AssembledReply;
}

type LooseDelta = {
  content?: string | null;
  reasoning_content?: string | null;
  reasoning?: string | null;
  tool_calls?: {
    index?: number;
    id?: string | null;
    function?: { name?: string | null; arguments?: string | null } | null;
  }[];
};

export function usageOf(raw: unknown): ModelUsage | null {
  if (!raw || typeof raw !== 'object') return null;
  const u = raw as Record<string, unknown>;
  const n = (v: unknown) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.floor(v) : null);
  const prompt = n(u.prompt_tokens);
  const completion = n(u.completion_tokens);
  if (prompt === null && completion === null) return null;
  const details = u.completion_tokens_details as Record<string, unknown> | undefined;
  return {
    prompt_tokens: prompt ?? 0,
    completion_tokens: completion ?? 0,
    total_tokens: n(u.total_tokens) ?? (prompt ?? 0) + (completion ?? 0),
    reasoning_tokens: n(details?.reasoning_tokens),
  };
}

export function createStreamAssembler(
  handlers: {
    onText?: (delta: string) => void;
    onReasoning?: (delta: string, field: ReasoningField) => void;
  } = {},
): StreamAssembler {
  let text = '';
  let reasoning = '';
  let reasoningField: ReasoningField | null = null;
  let finishReason: string | null = null;
  let usage: ModelUsage | null = null;
  let arrived = false;
  const calls: { key: number; call: AssembledToolCall }[] = [];
  /** The call an index currently feeds (a new id at a used index moves it to a new call). */
  const current = new Map<number, AssembledToolCall>();

  const callFor = (index: number, id: string | null | undefined): AssembledToolCall => {
    const cur = current.get(index);
    if (cur && !(id && cur.id && id !== cur.id)) return cur;
    const call: AssembledToolCall = { id: '', name: '', argumentsText: '' };
    calls.push({ key: index, call });
    current.set(index, call);
    return call;
  };

  return {
    push(chunk) {
      const u = usageOf((chunk as { usage?: unknown }).usage);
      if (u) usage = u;
      const choice = chunk.choices?.find((c) => (c.index ?? 0) === 0);
      if (!choice) return;
      const delta = (choice.delta ?? {}) as LooseDelta;
      if (typeof delta.content === 'string' && delta.content.length > 0) {
        arrived = true;
        text += delta.content;
        handlers.onText?.(delta.content);
      }
      for (const field of ['reasoning_content', 'reasoning'] as const) {
        const r = delta[field];
        if (typeof r === 'string' && r.length > 0) {
          arrived = true;
          reasoningField ??= field;
          reasoning += r;
          handlers.onReasoning?.(r, field);
        }
      }
      for (const tc of delta.tool_calls ?? []) {
        arrived = true;
        const index = typeof tc.index === 'number' ? tc.index : Math.max(0, ...current.keys());
        const call = callFor(index, tc.id);
        if (tc.id) call.id = tc.id;
        const name = tc.function?.name;
        // A name repeated in every chunk is the same name, not more of it.
        if (name && name !== call.name) call.name += name;
        const args = tc.function?.arguments;
        if (args) call.argumentsText += args;
      }
      if (choice.finish_reason) finishReason = choice.finish_reason;
    },
    tokensArrived: () => arrived,
    result: () => ({
      text,
      reasoning: reasoningField ? { field: reasoningField, text: reasoning } : null,
      toolCalls: calls
        .filter((c) => c.call.name.length > 0 || c.call.argumentsText.length > 0)
        .map((c) => c.call),
      finishReason,
      usage,
    }),
  };
}

/** A whole completion (non-streaming) read the same way. */
export function replyOfCompletion(completion: ChatCompletion): AssembledReply {
  const choice = completion.choices?.[0];
  const message = (choice?.message ?? {}) as ChatCompletion.Choice['message'] & {
    reasoning_content?: string | null;
    reasoning?: string | null;
  };
  const field: ReasoningField | null =
    typeof message.reasoning_content === 'string'
      ? 'reasoning_content'
      : typeof message.reasoning === 'string'
        ? 'reasoning'
        : null;
  return {
    text: message.content ?? '',
    reasoning: field ? { field, text: message[field] ?? '' } : null,
    toolCalls: (message.tool_calls ?? []).flatMap((tc) =>
      tc.type === 'function'
        ? [{ id: tc.id ?? '', name: tc.function.name, argumentsText: tc.function.arguments }]
        : [],
    ),
    finishReason: choice?.finish_reason ?? null,
    usage: usageOf(completion.usage),
  };
}
