/** The whole reply as one `chat.completion` object (non-streaming requests). */
import type { EmulatorReply } from '../types.js';
import { usageOf } from './chunks.js';

export function jsonCompletion(
  reply: EmulatorReply,
  meta: {
    id: string;
    created: number;
    model: string;
    reasoningField: 'reasoning_content' | 'reasoning';
    finishStop: boolean;
    omitIds: boolean;
  },
): Record<string, unknown> {
  const hasCalls = reply.toolCalls.length > 0;
  return {
    id: meta.id,
    object: 'chat.completion',
    created: meta.created,
    model: meta.model,
    choices: [
      {
        index: 0,
        message: {
          role: 'assistant',
          content: reply.text.length > 0 ? reply.text : hasCalls ? null : '',
          refusal: null,
          ...(reply.reasoning !== null ? { [meta.reasoningField]: reply.reasoning } : {}),
          ...(hasCalls
            ? {
                tool_calls: reply.toolCalls.map((tc) => ({
                  ...(meta.omitIds ? {} : { id: tc.id }),
                  type: 'function',
                  function: { name: tc.name, arguments: tc.arguments },
                })),
              }
            : {}),
        },
        finish_reason: hasCalls && !meta.finishStop ? 'tool_calls' : 'stop',
        logprobs: null,
      },
    ],
    usage: usageOf(reply),
  };
}
