/**
 * The streamed reply as a list of chunks before it is written: role, reasoning, text, then each
 * tool call (id and name first, arguments after), the finish chunk, and the usage-only chunk with
 * empty `choices` when the request asked for `stream_options.include_usage` (as OpenAI sends it).
 * Wire quirks (./*.ts beside this file) rewrite this list; ./sse.ts writes it.
 */
import type { EmulatorReply } from '../types.js';

export interface ToolCallDelta {
  index: number;
  id?: string;
  type?: 'function';
  function?: { name?: string; arguments?: string };
}

export interface ChoiceDelta {
  role?: 'assistant';
  content?: string;
  reasoning_content?: string;
  reasoning?: string;
  tool_calls?: ToolCallDelta[];
}

export type WireChunk =
  | {
      choices: { index: 0; delta: ChoiceDelta; finish_reason: string | null }[];
      usage?: Record<string, unknown> | null;
    }
  | { error: { message: string; type: string; param: null; code: string | null } };

export interface ChunkOptions {
  includeUsage: boolean;
  reasoningField: 'reasoning_content' | 'reasoning';
  pieceSize?: number;
}

export function splitPieces(text: string, size = 12): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

const choice = (delta: ChoiceDelta, finish: string | null = null): WireChunk => ({
  choices: [{ index: 0, delta, finish_reason: finish }],
});

export function usageOf(reply: EmulatorReply): Record<string, unknown> {
  return {
    prompt_tokens: reply.usage.prompt_tokens,
    completion_tokens: reply.usage.completion_tokens,
    total_tokens: reply.usage.total_tokens,
    completion_tokens_details: { reasoning_tokens: reply.usage.reasoning_tokens },
  };
}

export function replyChunks(reply: EmulatorReply, opts: ChunkOptions): WireChunk[] {
  const size = opts.pieceSize ?? 12;
  const chunks: WireChunk[] = [choice({ role: 'assistant', content: '' })];
  for (const piece of splitPieces(reply.reasoning ?? '', size))
    chunks.push(choice({ [opts.reasoningField]: piece }));
  for (const piece of splitPieces(reply.text, size)) chunks.push(choice({ content: piece }));
  for (const [index, tc] of reply.toolCalls.entries()) {
    chunks.push(
      choice({
        tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.name, arguments: '' } }],
      }),
    );
    for (const piece of splitPieces(tc.arguments, size))
      chunks.push(choice({ tool_calls: [{ index, function: { arguments: piece } }] }));
  }
  chunks.push(choice({}, reply.toolCalls.length > 0 ? 'tool_calls' : 'stop'));
  if (opts.includeUsage) chunks.push({ choices: [], usage: usageOf(reply) });
  return chunks;
}
