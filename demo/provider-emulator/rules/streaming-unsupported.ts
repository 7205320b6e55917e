/** A deployment that answers only whole completions: `stream: true` is refused with a 400. */
import { refusal, type RequestRule } from '../types.js';

export const streamingUnsupported: RequestRule = {
  name: 'streaming-unsupported',
  check(body) {
    if (body.stream !== true) return null;
    return refusal('streaming-unsupported', 400, 'Streaming is not supported by this deployment.', {
      code: 'unsupported_parameter',
      param: 'stream',
    });
  },
};
