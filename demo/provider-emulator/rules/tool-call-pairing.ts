/**
 * OpenAI (and every provider that follows it): a `tool` message answers a call of the assistant
 * message right before the run of tool messages it belongs to, and an assistant message with
 * `tool_calls` is followed by one tool message for each of its ids before anything else.
 */
import { refusal, type RequestRule } from '../types.js';

export const toolCallPairing: RequestRule = {
  name: 'tool-call-pairing',
  check(body) {
    const msgs = body.messages;
    for (let i = 0; i < msgs.length; i++) {
      const m = msgs[i];
      if (!m) continue;
      if (m.role === 'tool') {
        // Walk back over the run of tool messages to the assistant message they answer.
        let j = i - 1;
        while (j >= 0 && msgs[j]?.role === 'tool') j--;
        const owner = msgs[j];
        if (
          !owner ||
          owner.role !== 'assistant' ||
          !(owner.tool_calls ?? []).some((c) => c.id === m.tool_call_id)
        )
          return refusal(
            'tool-call-pairing',
            400,
            "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with 'tool_calls'.",
            { param: `messages.[${i}].role` },
          );
      }
      if (m.role === 'assistant' && (m.tool_calls?.length ?? 0) > 0) {
        const answered = new Set<string>();
        for (let k = i + 1; k < msgs.length && msgs[k]?.role === 'tool'; k++)
          answered.add(String(msgs[k]?.tool_call_id));
        const missing = (m.tool_calls ?? []).map((c) => c.id).filter((id) => !answered.has(id));
        if (missing.length > 0)
          return refusal(
            'tool-call-pairing',
            400,
            `An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: ${missing.join(', ')}`,
            { param: `messages.[${i + 1}].role` },
          );
      }
    }
    return null;
  },
};
