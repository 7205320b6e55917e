/** Admin API (admin bearer token): systems, clients, authorizations, approvals, audit, metrics. */
import type { FastifyInstance } from 'fastify';
import type { RegisterAnySystemRequest, ToolOverlay } from '../../src-shared/hub-api.js';
import { APPROVAL_STATES, type ApprovalState } from '../../src-shared/states.js';
import {
  authorizationView,
  changeAuthorization,
  createAuthorization,
  createClient,
  grantAuthorization,
} from '../admin/service.js';
import { decideApproval } from '../approvals/decide.js';
import { approvalView, approvalViews } from '../approvals/view.js';
import type { HubContext } from '../context.js';
import type { StreamRegistry } from '../events/stream-registry.js';
import { badRequest, notFound } from '../errors.js';
import { toReceipt } from '../invocations/receipt.js';
import { registerMcpSystem } from '../mcp/register.js';
import { listMcpTools, setToolOverlay } from '../mcp/tools-admin.js';
import { retireSystem } from '../systems/retire.js';
import { refreshSystem, registerSystem, systemView } from '../systems/service.js';
import type { HubAuth } from './auth.js';
import { bodies, EMPTY_BODY, idParams } from './schemas.js';

const str = (v: unknown, name: string, max = 200): string | undefined => {
  if (v === undefined) return undefined;
  if (typeof v !== 'string' || v.length === 0 || v.length > max)
    throw badRequest(`query parameter ${name} is invalid`);
  return v;
};

export function registerAdminRoutes(
  app: FastifyInstance,
  ctx: HubContext,
  auth: HubAuth,
  streams: StreamRegistry,
): void {
  const onRequest = auth.admin;
  const p = (name: string) => ({ params: idParams(name) });

  app.post<{ Body: RegisterAnySystemRequest }>(
    '/admin/v1/systems',
    { onRequest, schema: { body: bodies.registerSystem } },
    async (req, reply) =>
      reply
        .code(201)
        .send(
          req.body.kind === 'mcp'
            ? await registerMcpSystem(ctx, req.body, 'admin')
            : await registerSystem(ctx, req.body, 'admin'),
        ),
  );
  app.get('/admin/v1/systems', { onRequest }, async () => ({
    systems: await Promise.all((await ctx.store.listSystems()).map((s) => systemView(ctx, s))),
  }));
  app.get<{ Params: { id: string } }>(
    '/admin/v1/systems/:id',
    { onRequest, schema: p('id') },
    async (req) => {
      const s = await ctx.store.getSystem(req.params.id);
      if (!s) throw notFound('system_not_found', `no system ${req.params.id}`);
      return systemView(ctx, s);
    },
  );
  app.post<{ Params: { id: string } }>(
    '/admin/v1/systems/:id/refresh',
    { onRequest, schema: { ...p('id'), body: EMPTY_BODY } },
    async (req) => refreshSystem(ctx, req.params.id, 'admin'),
  );
  // no new calls, out of every catalogue, its MCP connection closed; idempotent (docs/hub-api.md)
  app.post<{ Params: { id: string } }>(
    '/admin/v1/systems/:id/retire',
    { onRequest, schema: { ...p('id'), body: EMPTY_BODY } },
    async (req) => retireSystem(ctx, req.params.id, 'admin'),
  );

  // an MCP server's tools, each with its overlay and how the Hub governs it (docs/mcp.md#the-overlay)
  app.get<{ Params: { id: string } }>(
    '/admin/v1/systems/:id/tools',
    { onRequest, schema: p('id') },
    async (req) => listMcpTools(ctx, req.params.id),
  );
  const toolParams = {
    type: 'object',
    properties: {
      id: { type: 'string', minLength: 1, maxLength: 200 },
      tool: { type: 'string', minLength: 1, maxLength: 200 },
    },
    required: ['id', 'tool'],
  };
  app.post<{ Params: { id: string; tool: string }; Body: ToolOverlay }>(
    '/admin/v1/systems/:id/tools/:tool/overlay',
    { onRequest, schema: { params: toolParams, body: bodies.toolOverlay } },
    async (req) => setToolOverlay(ctx, req.params.id, req.params.tool, req.body, 'admin'),
  );
  app.post<{ Params: { id: string; tool: string } }>(
    '/admin/v1/systems/:id/tools/:tool/overlay/clear',
    { onRequest, schema: { params: toolParams, body: EMPTY_BODY } },
    async (req) => setToolOverlay(ctx, req.params.id, req.params.tool, null, 'admin'),
  );

  app.post<{ Body: { name: string; client_id?: string } }>(
    '/admin/v1/clients',
    { onRequest, schema: { body: bodies.createClient } },
    async (req, reply) => reply.code(201).send(await createClient(ctx, req.body, 'admin')),
  );
  app.get('/admin/v1/clients', { onRequest }, async () => ({
    clients: (await ctx.store.listClients()).map((c) => ({
      client_id: c.client_id,
      name: c.name,
      created_at: c.created_at,
    })),
  }));

  app.post<{
    Body: { system_id: string; account: string; on_behalf_of: string; authorization_ref?: string };
  }>(
    '/admin/v1/authorizations',
    { onRequest, schema: { body: bodies.createAuthorization } },
    async (req, reply) => reply.code(201).send(await createAuthorization(ctx, req.body, 'admin')),
  );
  app.get('/admin/v1/authorizations', { onRequest }, async () => ({
    authorizations: await Promise.all(
      (await ctx.store.listAuthorizations()).map((a) => authorizationView(ctx, a)),
    ),
  }));
  app.post<{ Params: { ref: string }; Body: { client_id: string } }>(
    '/admin/v1/authorizations/:ref/grants',
    { onRequest, schema: { ...p('ref'), body: bodies.grant } },
    async (req) => grantAuthorization(ctx, req.params.ref, req.body.client_id, 'admin'),
  );
  app.post<{ Params: { ref: string } }>(
    '/admin/v1/authorizations/:ref/revoke',
    { onRequest, schema: { ...p('ref'), body: EMPTY_BODY } },
    async (req) => changeAuthorization(ctx, req.params.ref, { state: 'revoked' }, 'admin'),
  );
  app.post<{ Params: { ref: string }; Body: { account?: string; on_behalf_of?: string } | undefined }>(
    '/admin/v1/authorizations/:ref/rebind',
    { onRequest, schema: { ...p('ref'), body: bodies.rebind } },
    async (req) =>
      changeAuthorization(ctx, req.params.ref, { state: 'rebound', ...(req.body ?? {}) }, 'admin'),
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/admin/v1/approvals',
    { onRequest, config: { query: ['state'] } },
    async (req) => {
      const state = str(req.query.state, 'state');
      if (state !== undefined && !(APPROVAL_STATES as readonly string[]).includes(state))
        throw badRequest('state must be pending, approved or denied');
      return {
        approvals: await approvalViews(
          ctx.store,
          await ctx.store.listApprovals(state as ApprovalState | undefined),
        ),
      };
    },
  );
  app.get<{ Params: { id: string } }>(
    '/admin/v1/approvals/:id',
    { onRequest, schema: p('id') },
    async (req) => {
      const a = await ctx.store.getApproval(req.params.id);
      if (!a) throw notFound('approval_not_found', `no approval ${req.params.id}`);
      return approvalView(ctx.store, a);
    },
  );
  app.post<{
    Params: { id: string };
    Body: { decision_id: string; decision: 'approve' | 'deny'; note?: string };
  }>(
    '/admin/v1/approvals/:id/decision',
    { onRequest, schema: { ...p('id'), body: bodies.decision } },
    async (req) => decideApproval(ctx, req.params.id, req.body, 'admin'),
  );

  app.get<{ Params: { id: string } }>(
    '/admin/v1/invocations/:id',
    { onRequest, schema: p('id') },
    async (req) => {
      const rec = await ctx.store.getInvocation(req.params.id);
      if (!rec) throw notFound('invocation_not_found', `no invocation ${req.params.id}`);
      return toReceipt(rec, rec.approval_id ? await ctx.store.getApproval(rec.approval_id) : null);
    },
  );

  app.get<{ Querystring: Record<string, unknown> }>(
    '/admin/v1/audit',
    { onRequest, config: { query: ['invocation_id', 'task_id', 'kind', 'after_seq', 'limit'] } },
    async (req) => {
      const limitText = str(req.query.limit, 'limit', 6);
      const limit = limitText === undefined ? 1000 : Number(limitText);
      if (!Number.isInteger(limit) || limit < 1 || limit > 10_000)
        throw badRequest('limit must be an integer from 1 to 10000');
      const afterText = str(req.query.after_seq, 'after_seq', 15);
      const afterSeq = afterText === undefined ? undefined : Number(afterText);
      if (afterSeq !== undefined && (!Number.isInteger(afterSeq) || afterSeq < 0))
        throw badRequest('after_seq must be a non-negative integer');
      const entries = await ctx.store.listAudit({
        invocation_id: str(req.query.invocation_id, 'invocation_id'),
        task_id: str(req.query.task_id, 'task_id'),
        kind: str(req.query.kind, 'kind'),
        after_seq: afterSeq,
        limit,
      });
      return { entries };
    },
  );

  app.get('/admin/v1/metrics', { onRequest }, async () => ({
    ...ctx.metrics.snapshot(),
    durability: ctx.store.durability,
    event_streams: streams.countByClient(),
    store_commits: ctx.store.commitStats ? await ctx.store.commitStats() : null,
  }));
}
