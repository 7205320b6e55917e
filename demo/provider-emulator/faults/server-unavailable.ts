/** A provider that is overloaded or down for a moment: 500–504 with the provider's error body. */
import { refusal, type ProviderRefusal } from '../types.js';

export function serverUnavailable(status: 500 | 502 | 503 | 504): ProviderRefusal {
  return refusal('server-unavailable', status, 'The server is overloaded or not ready yet.', {
    type: 'server_error',
    code: null,
  });
}
