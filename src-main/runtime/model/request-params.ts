/**
 * The chat-completions request for one model call, with the provider's quirks applied: the
 * usage-only last chunk when streaming (`stream_options.include_usage`), Qwen's
 * `enable_thinking: false` on a non-streaming request, the right token-limit parameter.
 */
import type {
  ChatCompletionCreateParamsNonStreaming,
  ChatCompletionCreateParamsStreaming,
  ChatCompletionMessageParam,
  ChatCompletionTool,
} from 'openai/resources/chat/completions';
import type { ProviderQuirks } from '../../../src-shared/model-providers.js';

export interface RequestInput {
  model: string;
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  quirks: ProviderQuirks;
  temperature?: number;
  maxTokens?: number;
}

function common(input: RequestInput, stream: boolean): Record<string, unknown> {
  return {
    model: input.model,
    messages: input.messages,
    ...(input.tools.length > 0 ? { tools: input.tools, tool_choice: 'auto' } : {}),
    ...(input.temperature !== undefined ? { temperature: input.temperature } : {}),
    ...(input.maxTokens !== undefined ? { [input.quirks.tokenLimitParam]: input.maxTokens } : {}),
    ...(!stream && input.quirks.thinkingNeedsStream ? { enable_thinking: false } : {}),
  };
}

export function streamingRequest(input: RequestInput): ChatCompletionCreateParamsStreaming {
  return {
    ...common(input, true),
    stream: true,
    ...(input.quirks.streamUsage ? { stream_options: { include_usage: true } } : {}),
  } as unknown as ChatCompletionCreateParamsStreaming;
}

export function wholeRequest(input: RequestInput): ChatCompletionCreateParamsNonStreaming {
  return { ...common(input, false), stream: false } as unknown as ChatCompletionCreateParamsNonStreaming;
}
