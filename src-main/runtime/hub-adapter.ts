/** Bridges part 1's HubClient to the runtime's RuntimeHubPort (tool search returns the list). */
import type { HubClient } from '../hub-client/index.js';
import type { RuntimeHubPort } from './hub-port.js';

export function adaptHubClient(client: HubClient): RuntimeHubPort {
  return {
    listAuthorizations: (opts) => client.listAuthorizations(opts),
    searchTools: async (req, opts) => (await client.searchTools(req, opts)).declarations,
    createRun: (req, opts) => client.createRun(req, opts),
    endRun: (runId, opts) => client.endRun(runId, opts),
  };
}
