/**
 * Qwen on DashScope (compatible mode): the thinking mode only streams. A non-streaming request to a
 * hybrid-thinking model whose thinking is on by default must say `enable_thinking: false`, or it is
 * a 400 "parameter.enable_thinking must be set to false for non-streaming calls".
 */
import { refusal, type RequestRule } from '../types.js';

export const thinkingNeedsStream: RequestRule = {
  name: 'thinking-needs-stream',
  check(body) {
    if (body.stream === true || body.enable_thinking === false) return null;
    return refusal(
      'thinking-needs-stream',
      400,
      'parameter.enable_thinking must be set to false for non-streaming calls',
      { code: 'invalid_parameter_error' },
    );
  },
};
