/**
 * An error event in the middle of a stream: the text is cut after `afterChars` characters and the
 * stream ends with `data: {"error": {…}}` (no finish chunk, no `[DONE]`), as OpenAI-compatible
 * servers send a failure they meet after the response started.
 */
import type { WireChunk } from './chunks.js';

export const MID_STREAM_ERROR = 'The server had an error while processing your request. Sorry about that!';

export function errorMidStream(chunks: WireChunk[], afterChars: number): WireChunk[] {
  return [
    ...textUpTo(chunks, afterChars),
    { error: { message: MID_STREAM_ERROR, type: 'server_error', param: null, code: null } },
  ];
}

/**
 * The chunks of a reply up to its first `afterChars` characters of text (role and reasoning
 * included, no tool calls, no finish chunk): what a client has seen when the stream breaks there.
 */
export function textUpTo(chunks: WireChunk[], afterChars: number): WireChunk[] {
  const out: WireChunk[] = [];
  let seen = 0;
  for (const c of chunks) {
    const content = 'choices' in c ? c.choices[0]?.delta.content : undefined;
    if (content) {
      const room = afterChars - seen;
      if (room <= 0) break;
      const piece = content.slice(0, room);
      seen += piece.length;
      out.push({ choices: [{ index: 0, delta: { content: piece }, finish_reason: null }] });
      if (seen >= afterChars) break;
      continue;
    }
    if ('choices' in c && (c.choices[0]?.delta.tool_calls || c.choices[0]?.finish_reason)) break;
    out.push(c);
  }
  return out;
}
