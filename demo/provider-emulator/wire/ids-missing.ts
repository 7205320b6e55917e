/** Servers that give no id for a tool call (the client must make a short one of its own). */
import type { WireChunk } from './chunks.js';

export function idsMissing(chunks: WireChunk[]): WireChunk[] {
  return chunks.map((c) =>
    'choices' in c
      ? {
          ...c,
          choices: c.choices.map((ch) =>
            ch.delta.tool_calls
              ? {
                  ...ch,
                  delta: { ...ch.delta, tool_calls: ch.delta.tool_calls.map(({ id: _id, ...tc }) => tc) },
                }
              : ch,
          ),
        }
      : c,
  );
}
