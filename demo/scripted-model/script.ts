/**
 * Scripts for the scripted model server: an ordered list of steps. Each incoming chat-completions
 * request is answered by the FIRST not-yet-used step whose `match` accepts it (a step with
 * `repeat: true` is never used up). JSON-safe fields only, except `argumentsFrom`, which
 * programmatic callers may use to build arguments from the request (e.g. an invocation id the
 * model saw in an earlier tool result).
 */
import { z } from 'zod';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool' | string;
  content?: unknown;
  tool_calls?: { id: string; type?: string; function: { name: string; arguments: string } }[];
  tool_call_id?: string;
  name?: string;
}

export interface ChatRequestBody {
  model?: string;
  messages: ChatMessage[];
  tools?: { type: string; function: { name: string; description?: string; parameters?: unknown } }[];
  stream?: boolean;
  [key: string]: unknown;
}

export interface StepMatch {
  /** The request's last message is a user message whose text includes this. */
  userIncludes?: string;
  /** The request's last message is a user message whose text equals this (trimmed). */
  userEquals?: string;
  /** The request ends with tool results, one of them answering a call of this function name. */
  afterToolResultFor?: string;
  /** The request ends with tool results, one of them containing this text. */
  toolResultIncludes?: string;
  /** The latest user message anywhere in the request includes this (narrows the other conditions). */
  turnUserIncludes?: string;
}

export interface ScriptToolCall {
  id?: string;
  name: string;
  /** Object (serialized as JSON) or raw text (sent as-is: malformed JSON on purpose). */
  arguments?: Record<string, unknown> | string;
  /** Programmatic only: computes arguments from the request that is being answered. */
  argumentsFrom?: (request: ChatRequestBody) => Record<string, unknown> | string;
}

export interface ScriptReply {
  text?: string;
  /** Reasoning a thinking model streams before the answer (the provider emulator's thinking modes). */
  reasoning?: string;
  toolCalls?: ScriptToolCall[];
  /** Wait this long before answering (streaming: before the first chunk). */
  delayMs?: number;
  /** Streaming: wait between chunks. */
  chunkDelayMs?: number;
  /** Streaming: after the first text chunk, wait this long before the rest (for cancellation tests). */
  stallAfterFirstChunkMs?: number;
  /** Reply with an HTTP error instead of a completion. */
  httpError?: { status: number; message: string };
}

export interface ScriptStep {
  name?: string;
  match?: StepMatch; // no match = accepts any request
  reply: ScriptReply;
  repeat?: boolean;
}

export type Script = ScriptStep[];

const ToolCallJson = z.object({
  id: z.string().optional(),
  name: z.string().min(1),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()]).optional(),
});

export const ScriptJsonSchema = z.array(
  z.object({
    name: z.string().optional(),
    match: z
      .object({
        userIncludes: z.string().optional(),
        userEquals: z.string().optional(),
        afterToolResultFor: z.string().optional(),
        toolResultIncludes: z.string().optional(),
        turnUserIncludes: z.string().optional(),
      })
      .strict()
      .optional(),
    reply: z
      .object({
        text: z.string().optional(),
        reasoning: z.string().optional(),
        toolCalls: z.array(ToolCallJson).optional(),
        delayMs: z.number().int().min(0).optional(),
        chunkDelayMs: z.number().int().min(0).optional(),
        stallAfterFirstChunkMs: z.number().int().min(0).optional(),
        httpError: z.object({ status: z.number().int().min(400).max(599), message: z.string() }).optional(),
      })
      .strict(),
    repeat: z.boolean().optional(),
  }),
);

export function parseScriptJson(text: string): Script {
  return ScriptJsonSchema.parse(JSON.parse(text)) as Script;
}

export function messageText(message: ChatMessage | undefined): string {
  if (!message) return '';
  const c = message.content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) {
    return c
      .map((part) =>
        part && typeof part === 'object' && 'text' in part ? String((part as { text: unknown }).text) : '',
      )
      .join('');
  }
  return '';
}

/** Tool results at the end of the request, each with the function name of the call it answers. */
export function trailingToolResults(messages: ChatMessage[]): { name: string | null; content: string }[] {
  const out: { name: string | null; content: string }[] = [];
  let i = messages.length - 1;
  while (i >= 0 && messages[i]?.role === 'tool') i--;
  const assistant = messages[i];
  for (let j = i + 1; j < messages.length; j++) {
    const m = messages[j];
    if (!m) continue;
    const call = assistant?.tool_calls?.find((tc) => tc.id === m.tool_call_id);
    out.push({ name: call?.function.name ?? null, content: messageText(m) });
  }
  return out;
}

export function lastUserText(messages: ChatMessage[]): string | null {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i]?.role === 'user') return messageText(messages[i]);
  }
  return null;
}

export function stepMatches(step: ScriptStep, body: ChatRequestBody): boolean {
  const m = step.match;
  if (!m) return true;
  const last = body.messages[body.messages.length - 1];
  if (m.userIncludes !== undefined || m.userEquals !== undefined) {
    if (last?.role !== 'user') return false;
    const text = messageText(last);
    if (m.userIncludes !== undefined && !text.includes(m.userIncludes)) return false;
    if (m.userEquals !== undefined && text.trim() !== m.userEquals) return false;
  }
  if (m.afterToolResultFor !== undefined || m.toolResultIncludes !== undefined) {
    if (last?.role !== 'tool') return false;
    const results = trailingToolResults(body.messages);
    if (m.afterToolResultFor !== undefined && !results.some((r) => r.name === m.afterToolResultFor))
      return false;
    if (
      m.toolResultIncludes !== undefined &&
      !results.some((r) => r.content.includes(m.toolResultIncludes as string))
    )
      return false;
  }
  if (m.turnUserIncludes !== undefined) {
    const text = lastUserText(body.messages);
    if (text === null || !text.includes(m.turnUserIncludes)) return false;
  }
  return true;
}
