export {
  HubClientError,
  isHubClientError,
  isAuthoritativeNotFound,
  isOutcomeUnknown,
  type HubClientErrorKind,
} from './errors.js';
export { createHubClient, type HubClient, type HubClientOptions } from './agent-client.js';
export {
  createHubAdminClient,
  type HubAdminClient,
  type HubAdminClientOptions,
  type AuditQuery,
} from './admin-client.js';
export { createSseParser, type SubscribeOptions, type Subscription } from './sse.js';
export type { CallOptions, FetchLike } from './http.js';
