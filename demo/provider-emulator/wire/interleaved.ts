/**
 * Parallel tool calls whose deltas arrive interleaved by index (call 0's name, call 1's name, a
 * piece of 0's arguments, a piece of 1's, …), with the arguments cut at uneven places (1 to 5
 * characters, also inside an escape or a multi-byte character's JSON text). Only the index says
 * which call a piece belongs to.
 */
import type { WireChunk, ToolCallDelta } from './chunks.js';

export function interleaved(chunks: WireChunk[]): WireChunk[] {
  const isToolChunk = (c: WireChunk) => 'choices' in c && c.choices[0]?.delta.tool_calls !== undefined;
  const first = chunks.findIndex(isToolChunk);
  if (first < 0) return chunks;
  const rest = chunks.slice(first).filter((c) => !isToolChunk(c));
  // Rebuild each call's deltas: its opening delta, then its arguments re-cut into uneven pieces.
  const perCall = new Map<number, ToolCallDelta[]>();
  for (const c of chunks) {
    if (!('choices' in c)) continue;
    for (const tc of c.choices[0]?.delta.tool_calls ?? []) {
      const list = perCall.get(tc.index) ?? [];
      list.push(tc);
      perCall.set(tc.index, list);
    }
  }
  const queues = [...perCall.entries()].map(([index, deltas]) => {
    const [opening, ...pieces] = deltas;
    const args = pieces.map((p) => p.function?.arguments ?? '').join('');
    const out: ToolCallDelta[] = opening ? [opening] : [];
    let size = 1;
    for (let i = 0; i < args.length; i += size, size = (size % 5) + 1)
      out.push({ index, function: { arguments: args.slice(i, i + size) } });
    return out;
  });
  const merged: WireChunk[] = [];
  for (let round = 0; queues.some((q) => q.length > round); round++)
    for (const q of queues) {
      const d = q[round];
      if (d) merged.push({ choices: [{ index: 0, delta: { tool_calls: [d] }, finish_reason: null }] });
    }
  return [...chunks.slice(0, first), ...merged, ...rest];
}
