/**
 * A completion for a model the provider does not serve is a 404 (OpenAI: "The model `x` does not
 * exist or you do not have access to it.", code `model_not_found`).
 */
import { refusal, type RequestRule } from '../types.js';

export function modelKnown(models: readonly string[]): RequestRule {
  return {
    name: 'model-known',
    check(body) {
      const model = typeof body.model === 'string' ? body.model : '';
      if (models.includes(model)) return null;
      return refusal(
        'model-known',
        404,
        `The model \`${model.slice(0, 100)}\` does not exist or you do not have access to it.`,
        { code: 'model_not_found' },
      );
    },
  };
}
