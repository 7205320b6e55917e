/**
 * OpenAI: a tool-call id in the history is at most 40 characters, both on the assistant message's
 * `tool_calls[].id` and on the answering tool message's `tool_call_id`. A longer one is a 400:
 * "Invalid 'messages[2].tool_calls[0].id': string too long. Expected a string with maximum length
 * 40, but got a string with length 53 instead." (code `string_above_max_length`).
 */
import { refusal, type RequestRule } from '../types.js';

export const MAX_TOOL_CALL_ID = 40;

const tooLong = (param: string, length: number) =>
  refusal(
    'tool-call-id-length',
    400,
    `Invalid '${param}': string too long. Expected a string with maximum length ${MAX_TOOL_CALL_ID}, but got a string with length ${length} instead.`,
    { code: 'string_above_max_length', param },
  );

export const toolCallIdLength: RequestRule = {
  name: 'tool-call-id-length',
  check(body) {
    for (const [i, m] of body.messages.entries()) {
      for (const [j, tc] of (m.tool_calls ?? []).entries())
        if (typeof tc.id === 'string' && tc.id.length > MAX_TOOL_CALL_ID)
          return tooLong(`messages[${i}].tool_calls[${j}].id`, tc.id.length);
      if (typeof m.tool_call_id === 'string' && m.tool_call_id.length > MAX_TOOL_CALL_ID)
        return tooLong(`messages[${i}].tool_call_id`, m.tool_call_id.length);
    }
    return null;
  },
};
