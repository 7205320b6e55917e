/**
 * OpenAI: a function's description is at most 1,024 characters; a longer one is a 400 "Invalid
 * 'tools[5].function.description': string too long. Expected a string with maximum length 1024,
 * but got a string with length 2357 instead." (code `string_above_max_length`).
 */
import { refusal, type RequestRule } from '../types.js';

export const MAX_TOOL_DESCRIPTION = 1024;

export const toolDescriptionLength: RequestRule = {
  name: 'tool-description-length',
  check(body) {
    for (const [i, t] of (body.tools ?? []).entries()) {
      const d = t.function?.description;
      if (typeof d === 'string' && d.length > MAX_TOOL_DESCRIPTION) {
        const param = `tools[${i}].function.description`;
        return refusal(
          'tool-description-length',
          400,
          `Invalid '${param}': string too long. Expected a string with maximum length ${MAX_TOOL_DESCRIPTION}, but got a string with length ${d.length} instead.`,
          { code: 'string_above_max_length', param },
        );
      }
    }
    return null;
  },
};
