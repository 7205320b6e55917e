/**
 * DeepSeek thinking mode: between two user messages, if the model made tool calls, the
 * `reasoning_content` of every assistant message of that stretch must be passed back, in all later
 * requests; otherwise 400 "The reasoning_content in the thinking mode must be passed back to the
 * API." A stretch without tool calls needs none (it is ignored if sent). Where the emulator itself
 * issued reasoning with a tool call, the text passed back must be that text.
 */
import { refusal, type ChatMessage, type RequestRule } from '../types.js';

const MESSAGE = 'The reasoning_content in the thinking mode must be passed back to the API.';

export const reasoningPassedBack: RequestRule = {
  name: 'reasoning-passed-back',
  check(body, memory) {
    let stretch: { index: number; message: ChatMessage }[] = [];
    const checkStretch = () => {
      if (!stretch.some((s) => (s.message.tool_calls?.length ?? 0) > 0)) return null;
      for (const { index, message } of stretch) {
        const sent = (message as { reasoning_content?: unknown }).reasoning_content;
        if (typeof sent !== 'string')
          return refusal('reasoning-passed-back', 400, MESSAGE, { code: 'invalid_request_error' });
        const issued = message.tool_calls?.map((c) => memory.calls.get(c.id)?.reasoning).find((r) => r);
        if (typeof issued === 'string' && issued !== sent)
          return refusal('reasoning-passed-back', 400, `${MESSAGE} (messages[${index}] differs)`, {
            code: 'invalid_request_error',
          });
      }
      return null;
    };
    for (const [index, message] of body.messages.entries()) {
      if (message.role === 'user') {
        const bad = checkStretch();
        if (bad) return bad;
        stretch = [];
      } else if (message.role === 'assistant') stretch.push({ index, message });
    }
    return checkStretch();
  },
};
