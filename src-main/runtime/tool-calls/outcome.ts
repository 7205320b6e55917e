/** What one tool call ends with: the text the model reads, the feedback and receipt the card shows. */
import type { Receipt } from '../../../src-shared/hub-api.js';
import type { ToolCallCard } from '../desk-runtime.js';
import type { Feedback, ScopeBlock } from '../invocation-ports.js';
import { feedbackForModel, hostFeedback } from '../model-tools.js';

export interface ExecutableCall {
  callId: string; // host call id (unique per session); also the tool_call id in the model history
  name: string;
  argumentsText: string;
}

export interface Outcome {
  content: string;
  feedback: Feedback | null;
  invocation_id: string | null;
  receipt: Receipt | null;
  state: ToolCallCard['state'];
  /** A member the Hub reported revoked or rebound while this call ran: the whole scope is blocked. */
  scopeBlock?: ScopeBlock;
}

/** A refusal on the host: nothing was sent. */
export function refuse(
  category: Feedback['category'],
  code: string,
  message: string,
  next: string,
  state: ToolCallCard['state'] = 'refused',
  detail?: string,
): Outcome {
  const feedback: Feedback = {
    ...hostFeedback(category, code, message, next),
    ...(detail ? { detail } : {}),
  };
  return { content: feedbackForModel(feedback), feedback, invocation_id: null, receipt: null, state };
}

export function turnCancelled(message = 'The turn was cancelled; nothing was sent.'): Outcome {
  return refuse('not_dispatched', 'turn_cancelled', message, 'none', 'not_dispatched');
}
