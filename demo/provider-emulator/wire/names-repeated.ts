/**
 * Servers that repeat the tool call's id, type and function name in every chunk of that call
 * (seen with several OpenAI-compatible local servers). A client that concatenates names would read
 * `update_productupdate_product`.
 */
import type { EmulatorReply } from '../types.js';
import type { WireChunk } from './chunks.js';

export function namesRepeated(chunks: WireChunk[], reply: EmulatorReply): WireChunk[] {
  return chunks.map((c) => {
    if (!('choices' in c)) return c;
    return {
      ...c,
      choices: c.choices.map((ch) => ({
        ...ch,
        delta: {
          ...ch.delta,
          ...(ch.delta.tool_calls
            ? {
                tool_calls: ch.delta.tool_calls.map((tc) => {
                  const call = reply.toolCalls[tc.index];
                  return call
                    ? {
                        ...tc,
                        id: call.id,
                        type: 'function' as const,
                        function: { name: call.name, arguments: tc.function?.arguments ?? '' },
                      }
                    : tc;
                }),
              }
            : {}),
        },
      })),
    };
  });
}
