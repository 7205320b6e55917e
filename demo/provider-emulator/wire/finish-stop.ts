/** Servers that end a reply with tool calls with `finish_reason: "stop"` instead of `"tool_calls"`. */
import type { WireChunk } from './chunks.js';

export function finishStop(chunks: WireChunk[]): WireChunk[] {
  return chunks.map((c) =>
    'choices' in c
      ? {
          ...c,
          choices: c.choices.map((ch) =>
            ch.finish_reason === 'tool_calls' ? { ...ch, finish_reason: 'stop' } : ch,
          ),
        }
      : c,
  );
}
