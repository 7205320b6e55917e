export {
  HubClientError,
  HUB_FAILURE_CODES,
  isHubClientError,
  isAuthoritativeNotFound,
  isOutcomeUnknown,
  type HubClientErrorKind,
  type HubFailureCode,
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
