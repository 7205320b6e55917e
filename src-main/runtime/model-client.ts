/**
 * The model client: the real `openai` SDK against any OpenAI-compatible base URL. Streaming with
 * deltas, cancellable with an AbortSignal. Settings (and the API key) are read from the caller's
 * provider for each request; nothing is stored here.
 */
import OpenAI from 'openai';
import type { ChatCompletionMessageParam, ChatCompletionTool } from 'openai/resources/chat/completions';
import type { ModelSettingsProvider } from './desk-runtime.js';

export interface ModelToolCall {
  id: string;
  name: string;
  argumentsText: string;
}

export interface ModelReply {
  text: string;
  toolCalls: ModelToolCall[];
  finishReason: 'stop' | 'tool_calls' | 'length' | 'cancelled' | 'error' | string;
}

export interface ModelRequest {
  messages: ChatCompletionMessageParam[];
  tools: ChatCompletionTool[];
  signal: AbortSignal;
  onDelta?: (text: string) => void;
}

export interface ModelClient {
  complete(req: ModelRequest): Promise<ModelReply>;
}

export function createModelClient(
  settings: ModelSettingsProvider,
  opts: { timeoutMs?: number } = {},
): ModelClient {
  return {
    async complete(outer) {
      // A child signal per request, so SDK listeners never pile up on the turn's signal.
      const child = new AbortController();
      const relay = () => child.abort(outer.signal.reason);
      if (outer.signal.aborted) child.abort(outer.signal.reason);
      else outer.signal.addEventListener('abort', relay, { once: true });
      try {
        return await completeOnce({ ...outer, signal: child.signal });
      } finally {
        outer.signal.removeEventListener('abort', relay);
      }
    },
  };

  async function completeOnce(req: ModelRequest): Promise<ModelReply> {
    {
      const s = await settings.get();
      // A fresh SDK client per request: the key is never kept beyond this call.
      const client = new OpenAI({
        baseURL: s.baseUrl,
        apiKey: s.apiKey ?? 'no-key',
        maxRetries: 0,
        timeout: opts.timeoutMs ?? 120_000,
      });
      const base = {
        model: s.model,
        messages: req.messages,
        ...(req.tools.length > 0 ? { tools: req.tools, tool_choice: 'auto' as const } : {}),
        ...(s.temperature !== undefined ? { temperature: s.temperature } : {}),
      };
      if (s.stream === false) {
        const r = await client.chat.completions.create({ ...base, stream: false }, { signal: req.signal });
        const choice = r.choices[0];
        const text = choice?.message.content ?? '';
        if (text) req.onDelta?.(text);
        return {
          text,
          toolCalls: (choice?.message.tool_calls ?? []).flatMap((tc) =>
            tc.type === 'function'
              ? [{ id: tc.id, name: tc.function.name, argumentsText: tc.function.arguments }]
              : [],
          ),
          finishReason: choice?.finish_reason ?? 'stop',
        };
      }
      const stream = await client.chat.completions.create({ ...base, stream: true }, { signal: req.signal });
      let text = '';
      let finishReason: string = 'stop';
      const calls = new Map<number, ModelToolCall>();
      for await (const chunk of stream) {
        const choice = chunk.choices[0];
        if (!choice) continue;
        const delta = choice.delta;
        if (delta?.content) {
          text += delta.content;
          req.onDelta?.(delta.content);
        }
        for (const tc of delta?.tool_calls ?? []) {
          const cur = calls.get(tc.index) ?? { id: '', name: '', argumentsText: '' };
          if (tc.id) cur.id = tc.id;
          if (tc.function?.name) cur.name += tc.function.name;
          if (tc.function?.arguments) cur.argumentsText += tc.function.arguments;
          calls.set(tc.index, cur);
        }
        if (choice.finish_reason) finishReason = choice.finish_reason;
      }
      if (req.signal.aborted) finishReason = 'cancelled';
      const toolCalls = [...calls.entries()]
        .sort((a, b) => a[0] - b[0])
        .map(([i, c]) => ({ ...c, id: c.id || `call_${i}` }));
      return { text, toolCalls, finishReason };
    }
  }
}
