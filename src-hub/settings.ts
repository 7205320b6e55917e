/** The Hub's tunables: defaults, overridden by the config file, overridden by createHub's `settings`. */
import { rateLimitsOf, type HubConfig } from './config.js';
import type { HubSettings } from './context.js';
import { DEFAULT_RATE_LIMITS } from './http/rate-limit.js';

export const DEFAULT_SETTINGS: HubSettings = {
  bodyLimit: 1024 * 1024,
  rateLimits: DEFAULT_RATE_LIMITS,
  requestTimeoutMs: 30_000,
  headersTimeoutMs: 20_000,
  heartbeatMs: 15_000,
  specTimeoutMs: 10_000,
  lookupTimeoutMs: 10_000,
  eventPollMs: 1_000,
  sseMaxStreamsPerClient: 16,
  sseStallMs: 120_000,
  eventRetentionMs: 30 * 24 * 3600_000,
  eventRetentionPerClient: 100_000,
  eventPruneIntervalMs: 3600_000,
  leaseMs: 15_000,
  mcpInitializeTimeoutMs: 10_000,
  mcpListTimeoutMs: 15_000,
  mcpMaxTools: 1_000,
  mcpMaxPages: 100,
  mcpMaxMessageBytes: 8 * 1024 * 1024,
  mcpEndpointPageSize: 100,
  mcpAllowedHosts: ['127.0.0.1', 'localhost', '[::1]'],
};

export function resolveSettings(
  config: HubConfig | undefined,
  overrides: Partial<HubSettings> = {},
): HubSettings {
  return {
    ...DEFAULT_SETTINGS,
    ...(config?.body_limit ? { bodyLimit: config.body_limit } : {}),
    ...(config?.heartbeat_ms ? { heartbeatMs: config.heartbeat_ms } : {}),
    ...(config?.request_timeout_ms ? { requestTimeoutMs: config.request_timeout_ms } : {}),
    ...(config?.headers_timeout_ms ? { headersTimeoutMs: config.headers_timeout_ms } : {}),
    ...(config?.event_retention_days
      ? { eventRetentionMs: config.event_retention_days * 24 * 3600_000 }
      : {}),
    rateLimits: rateLimitsOf(config, DEFAULT_SETTINGS.rateLimits),
    ...(config?.sse_max_streams_per_client
      ? { sseMaxStreamsPerClient: config.sse_max_streams_per_client }
      : {}),
    ...(config?.event_retention_per_client
      ? { eventRetentionPerClient: config.event_retention_per_client }
      : {}),
    ...(config?.lease_ms ? { leaseMs: config.lease_ms } : {}),
    ...(config?.mcp_allowed_hosts ? { mcpAllowedHosts: config.mcp_allowed_hosts } : {}),
    ...overrides,
  };
}
