/**
 * The id sent back for a tool call is exactly the id this provider gave for it, with the same
 * function name. Real providers do not all check this, but a client that rewrites ids (a
 * composite id of its own, a truncated one) breaks the ones that key cached state by them; the
 * emulator refuses it so a rewrite cannot go unnoticed.
 */
import { refusal, type RequestRule } from '../types.js';

export const toolCallIdIssued: RequestRule = {
  name: 'tool-call-id-issued',
  check(body, memory) {
    for (const [i, m] of body.messages.entries()) {
      for (const [j, tc] of (m.tool_calls ?? []).entries()) {
        const issued = memory.calls.get(tc.id);
        if (!issued)
          return refusal(
            'tool-call-id-issued',
            400,
            `Invalid 'messages[${i}].tool_calls[${j}].id': '${String(tc.id).slice(0, 80)}' is not the id of a tool call this provider returned.`,
            { param: `messages[${i}].tool_calls[${j}].id` },
          );
        if (issued.name !== tc.function?.name)
          return refusal(
            'tool-call-id-issued',
            400,
            `Invalid 'messages[${i}].tool_calls[${j}].function.name': the tool call ${tc.id} was made to ${issued.name}.`,
            { param: `messages[${i}].tool_calls[${j}].function.name` },
          );
      }
    }
    return null;
  },
};
