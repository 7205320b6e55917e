/**
 * Shared shapes of the provider emulator: the request as it arrived, the refusals a rule answers
 * with (the providers' own error body), and what the emulator remembers of the replies it gave
 * (the tool-call ids and reasoning it issued), so a later request can be checked against them.
 */
import type { ChatMessage, ChatRequestBody } from '../scripted-model/script.js';

export type { ChatMessage, ChatRequestBody };

/** An error answer as the OpenAI-compatible providers shape it: `{"error": {message, type, param, code}}`. */
export interface ProviderRefusal {
  status: number;
  /** The rule or fault that answered (logged; never sent). */
  rule: string;
  message: string;
  type: string;
  code: string | null;
  param: string | null;
  headers?: Record<string, string>;
}

export interface IssuedCall {
  id: string;
  name: string;
  /** The reasoning the emulator streamed with the reply that made this call (null outside thinking modes). */
  reasoning: string | null;
}

/** What the emulator has issued so far (kept across script changes). */
export interface EmulatorMemory {
  calls: Map<string, IssuedCall>;
}

/** A check on an incoming chat-completions request: null when it passes. */
export interface RequestRule {
  name: string;
  check(body: ChatRequestBody, memory: EmulatorMemory): ProviderRefusal | null;
}

export function refusal(
  rule: string,
  status: number,
  message: string,
  extra: {
    type?: string;
    code?: string | null;
    param?: string | null;
    headers?: Record<string, string>;
  } = {},
): ProviderRefusal {
  return {
    rule,
    status,
    message,
    type: extra.type ?? 'invalid_request_error',
    code: extra.code ?? null,
    param: extra.param ?? null,
    ...(extra.headers ? { headers: extra.headers } : {}),
  };
}

/** The abstract reply the wire writers turn into a JSON completion or an SSE stream. */
export interface EmulatorReply {
  text: string;
  reasoning: string | null;
  toolCalls: { id: string; name: string; arguments: string }[];
  usage: { prompt_tokens: number; completion_tokens: number; total_tokens: number; reasoning_tokens: number };
}
