/**
 * The Hub's optional JSON config file: systems, clients and authorizations declared up front so a
 * fresh Hub comes up ready. Validated with zod; applied idempotently at every start (existing
 * records are updated, never duplicated). See docs/hub-api.md ("Config file").
 */
import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { isHeaderSafe, ON_BEHALF_OF_RULE } from '../src-shared/header-value.js';
import { RegisterMcpSystemRequestSchema, RegisterSystemRequestSchema } from '../src-shared/hub-api.js';
import { hashToken, clientIdOfToken } from './auth/tokens.js';
import type { HubContext } from './context.js';
import { checkBaseUrl } from './dispatch/destination.js';
import { HubError } from './errors.js';
import type { RateLimitSettings } from './http/rate-limit.js';
import { registerMcpSystem } from './mcp/register.js';
import { registerSystem } from './systems/service.js';

const bucket = z
  .object({
    per_second: z.number().positive().max(1_000_000),
    burst: z.number().int().min(1).max(1_000_000),
  })
  .strict();

export const HubConfigSchema = z
  .object({
    admin_token: z.string().min(16).max(512).optional(),
    /** The file holding the Hub's secret key (owner-only, outside the store; docs/operations.md). */
    secret_key_file: z.string().min(1).max(4096).optional(),
    /** The store: absent = SQLite in the data directory; a postgres:// URL = PostgreSQL, shareable by several Hubs. */
    store: z
      .object({
        url: z
          .string()
          .max(2048)
          .regex(/^postgres(ql)?:\/\//i, 'store.url must be a postgres:// or postgresql:// URL'),
        /** Connections of this Hub instance (default 10). */
        pool_size: z.number().int().min(1).max(200).optional(),
      })
      .strict()
      .optional(),
    /** This Hub's name among the instances sharing a store (a restart with the same name recovers its calls at once). */
    instance_id: z
      .string()
      .regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$/)
      .optional(),
    /** Lease of this instance on the calls it dispatches (ms, default 15000). */
    lease_ms: z.number().int().min(500).max(600_000).optional(),
    body_limit: z
      .number()
      .int()
      .min(1024)
      .max(64 * 1024 * 1024)
      .optional(),
    heartbeat_ms: z.number().int().min(100).max(300_000).optional(),
    /** A request's whole arrival, headers and body (ms, default 30000): past it, 408 request_timeout. */
    request_timeout_ms: z.number().int().min(1_000).max(600_000).optional(),
    /** A request's headers (ms, default 20000; never more than request_timeout_ms): past it, 408. */
    headers_timeout_ms: z.number().int().min(1_000).max(600_000).optional(),
    /** Events (the SSE feed) older than this many days are pruned; receipts and audit are never pruned. */
    event_retention_days: z.number().int().min(1).max(3650).optional(),
    /** At most this many newest events are kept per client. */
    event_retention_per_client: z.number().int().min(100).max(10_000_000).optional(),
    /** Request rate limits of the APIs (docs/hub-api.md, "Rate limits"); null turns one off. */
    rate_limits: z
      .object({
        agent: bucket.nullable().optional(),
        admin: bucket.nullable().optional(),
        failed_auth_per_address: z
          .object({
            count: z.number().int().min(1).max(1_000_000),
            window_ms: z.number().int().min(1_000).max(86_400_000),
          })
          .strict()
          .nullable()
          .optional(),
      })
      .strict()
      .optional(),
    /** Host names the MCP endpoint /mcp answers to (DNS-rebinding protection; default loopback names). */
    mcp_allowed_hosts: z.array(z.string().min(1).max(253)).min(1).max(32).optional(),
    /** Concurrent SSE streams one client may hold (default 16). */
    sse_max_streams_per_client: z.number().int().min(1).max(10_000).optional(),
    /** HTTP systems, and MCP servers (`kind: "mcp"`, docs/mcp.md). */
    systems: z
      .array(z.union([RegisterSystemRequestSchema.strict(), RegisterMcpSystemRequestSchema.strict()]))
      .default([]),
    clients: z
      .array(
        z
          .object({
            client_id: z.string().regex(/^[A-Za-z0-9_.:-]{1,128}$/),
            name: z.string().min(1).max(200),
            token: z.string().min(24).max(512),
          })
          .strict()
          .refine((c) => clientIdOfToken(c.token) === c.client_id, {
            message: 'token must be bdc_<client_id>.<secret of 16+ url-safe chars>',
          }),
      )
      .default([]),
    authorizations: z
      .array(
        z
          .object({
            authorization_ref: z.string().regex(/^[A-Za-z0-9][A-Za-z0-9_.:-]{0,127}$/),
            system_id: z.string(),
            account: z.string().min(1).max(200),
            on_behalf_of: z.string().min(1).max(200).refine(isHeaderSafe, { message: ON_BEHALF_OF_RULE }),
            grant_to: z.array(z.string()).default([]),
          })
          .strict(),
      )
      .default([]),
  })
  .strict();
export type HubConfig = z.infer<typeof HubConfigSchema>;

export function loadConfigFile(path: string): HubConfig {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new Error(`cannot read Hub config ${path}: ${(err as Error).message}`);
  }
  const parsed = HubConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw new Error(
      `invalid Hub config ${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  }
  return parsed.data;
}

export async function applyConfig(ctx: HubContext, config: HubConfig): Promise<void> {
  const actor = 'config';
  // a refused destination stops the start: nothing of the config is applied
  for (const [i, s] of config.systems.entries()) {
    const [field, refusal] =
      s.kind === 'mcp'
        ? s.server.transport === 'streamable_http'
          ? ['server.url', checkBaseUrl(s.server.url, false)]
          : ['', null]
        : ['base_url', checkBaseUrl(s.base_url, s.allow_insecure_http ?? false)];
    if (refusal)
      throw new HubError(
        400,
        refusal.code,
        `invalid Hub config: systems.${i}.${field} (${s.system_id}): ${refusal.message}`,
      );
  }
  for (const s of config.systems) {
    // a system the admin retired stays retired across restarts: the config file does not revive it
    if ((await ctx.store.getSystem(s.system_id))?.retired_at) {
      ctx.logger.warn(
        { system_id: s.system_id },
        'config system is retired and stays retired; register it again (admin API or CLI) to revive it',
      );
      continue;
    }
    await (
      s.kind === 'mcp'
        ? registerMcpSystem(ctx, s, actor, { requireServer: false })
        : registerSystem(ctx, s, actor, { requireSpec: false })
    ).catch((err: Error) => {
      ctx.logger.warn(
        { system_id: s.system_id, error: err.message },
        'config system registered with problems',
      );
    });
  }
  const salt = ctx.store.tokenSalt();
  for (const c of config.clients) {
    const existing = await ctx.store.getClient(c.client_id);
    await ctx.store.upsertClient(
      {
        client_id: c.client_id,
        name: c.name,
        token_hash: hashToken(salt, c.token),
        created_at: existing?.created_at ?? ctx.now().toISOString(),
      },
      { actor, kind: 'client.configured', detail: { client_id: c.client_id } },
    );
  }
  for (const a of config.authorizations) {
    const sys = await ctx.store.getSystem(a.system_id);
    if (!sys) throw new Error(`config authorization ${a.authorization_ref}: unknown system ${a.system_id}`);
    // a retired system's authorizations and grants stay as they were (its history) until it is revived
    if (sys.retired_at !== null) {
      ctx.logger.warn(
        { system_id: a.system_id, authorization_ref: a.authorization_ref },
        'config authorization of a retired system is not applied; register the system again to revive it',
      );
      continue;
    }
    const existing = await ctx.store.getAuthorization(a.authorization_ref);
    if (!existing) {
      const at = ctx.now().toISOString();
      await ctx.store
        .createAuthorization(
          {
            authorization_ref: a.authorization_ref,
            system_id: a.system_id,
            account: a.account,
            on_behalf_of: a.on_behalf_of,
            state: 'active',
            revision: 1,
            created_at: at,
            updated_at: at,
          },
          { actor, kind: 'authorization.created', detail: { authorization_ref: a.authorization_ref } },
        )
        .catch(async (err: unknown) => {
          // several Hub instances sharing a store apply the same config at start: another one won
          if (!(await ctx.store.getAuthorization(a.authorization_ref))) throw err;
        });
    }
    for (const clientId of a.grant_to) {
      if (!(await ctx.store.getClient(clientId)))
        throw new Error(`config authorization ${a.authorization_ref}: unknown client ${clientId}`);
      await ctx.store.grant(a.authorization_ref, clientId, {
        actor,
        kind: 'authorization.granted',
        detail: { authorization_ref: a.authorization_ref, client_id: clientId },
      });
    }
  }
}

/** The rate limits a config asks for, over the defaults (a key left out keeps its default). */
export function rateLimitsOf(config: HubConfig | undefined, defaults: RateLimitSettings): RateLimitSettings {
  const r = config?.rate_limits;
  if (!r) return defaults;
  const rule = (b: { per_second: number; burst: number } | null) =>
    b === null ? null : { perSecond: b.per_second, burst: b.burst };
  return {
    agent: r.agent === undefined ? defaults.agent : rule(r.agent),
    admin: r.admin === undefined ? defaults.admin : rule(r.admin),
    authFailures:
      r.failed_auth_per_address === undefined
        ? defaults.authFailures
        : r.failed_auth_per_address === null
          ? null
          : { count: r.failed_auth_per_address.count, windowMs: r.failed_auth_per_address.window_ms },
  };
}
