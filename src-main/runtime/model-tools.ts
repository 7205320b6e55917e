/**
 * The functions offered to the model: search_tools, the two recovery functions (each taking ONLY
 * the original invocation_id) and one function per cached declaration, with its FULL input schema.
 * Also the JSON texts the model reads back (bounded), and host-side feedback.
 */
import type { ChatCompletionTool } from 'openai/resources/chat/completions';
import { INVOCATION_STATE_LABELS } from '../../src-shared/states.js';
import type { Receipt } from '../../src-shared/hub-api.js';
import type { Feedback, FeedbackCategory } from './invocation-ports.js';
import type { CachedDeclaration } from './declaration-cache.js';
import { toolDescription } from './tool-guidance.js';

export const SEARCH_TOOLS_SCHEMA = {
  type: 'object',
  properties: {
    query: {
      type: 'string',
      minLength: 1,
      maxLength: 500,
      description: 'What you want to do, e.g. "edit product description" or "check stock".',
    },
    limit: { type: 'integer', minimum: 1, maximum: 20 },
  },
  required: ['query'],
  additionalProperties: false,
} as const;

export const INVOCATION_ID_SCHEMA = {
  type: 'object',
  properties: { invocation_id: { type: 'string', minLength: 8, maxLength: 128 } },
  required: ['invocation_id'],
  additionalProperties: false,
} as const;

export function modelTools(cached: readonly CachedDeclaration[], hasScope: boolean): ChatCompletionTool[] {
  if (!hasScope) return [];
  const tools: ChatCompletionTool[] = [
    {
      type: 'function',
      function: {
        name: 'search_tools',
        description:
          'Search the Hub for business tools of the selected systems. Found tools are loaded as functions and stay loaded.',
        parameters: SEARCH_TOOLS_SCHEMA as unknown as Record<string, unknown>,
      },
    },
    {
      type: 'function',
      function: {
        name: 'inspect_governed_tool_invocation',
        description:
          'Read the current receipt of an earlier business call by its original invocation_id. Read-only; never sends the call again.',
        parameters: INVOCATION_ID_SCHEMA as unknown as Record<string, unknown>,
      },
    },
    {
      type: 'function',
      function: {
        name: 'resume_governed_tool_invocation',
        description:
          'Explicitly continue an earlier call (e.g. approved but not yet run) by its original invocation_id. Only when the user asks to continue it. Never a new call.',
        parameters: INVOCATION_ID_SCHEMA as unknown as Record<string, unknown>,
      },
    },
  ];
  for (const c of cached) {
    tools.push({
      type: 'function',
      function: {
        name: c.functionName,
        // Description, target, effect, approval and the declaration's guidance, bounded (./tool-guidance.ts).
        description: toolDescription(c.declaration),
        parameters: c.declaration.input_schema,
      },
    });
  }
  return tools;
}

export function hostFeedback(
  category: FeedbackCategory,
  code: string,
  message: string,
  next_action: string,
  retryable = false,
): Feedback {
  return { category, code, message, next_action, retryable };
}

const MAX_RESULT_CHARS = 16_000;

export function boundedJson(value: unknown, max = MAX_RESULT_CHARS): string {
  const text = JSON.stringify(value ?? null);
  if (text.length <= max) return text;
  return JSON.stringify({ truncated: true, preview: text.slice(0, max - 200) });
}

export function receiptForModel(
  receipt: Receipt,
  feedback: Feedback | null,
  extra: Record<string, unknown> = {},
): string {
  return boundedJson({
    invocation_id: receipt.invocation_id,
    state: receipt.state,
    state_label: INVOCATION_STATE_LABELS[receipt.state],
    dispatch: receipt.dispatch,
    tool: receipt.tool,
    authorization_ref: receipt.authorization_ref,
    result: receipt.result,
    result_truncated: receipt.result_truncated,
    business_status: receipt.business_status,
    reason_code: receipt.reason_code,
    reason_message: receipt.reason_message,
    retry_after_ms: receipt.retry_after_ms,
    approval: receipt.approval ? { state: receipt.approval.state, prompt: receipt.approval.prompt } : null,
    feedback,
    ...extra,
  });
}

export function feedbackForModel(feedback: Feedback, extra: Record<string, unknown> = {}): string {
  return boundedJson({ ok: false, feedback, ...extra });
}
