/** Agent API (client bearer token; everything scoped to that client). */
import type { FastifyInstance } from 'fastify';
import type {
  AttestRequest,
  CreateRunRequest,
  InvokeRequest,
  Run,
  ToolSearchRequest,
} from '../../src-shared/hub-api.js';
import { clientAuthorizations } from '../admin/service.js';
import type { HubContext } from '../context.js';
import { badRequest, notFound } from '../errors.js';
import { attest } from '../invocations/attest.js';
import { invoke } from '../invocations/invoke.js';
import { openRun } from '../invocations/open-run.js';
import { toReceipt } from '../invocations/receipt.js';
import { loadOwnInvocation, resume } from '../invocations/resume.js';
import { searchTools } from '../systems/declarations.js';
import type { RunRecord } from '../store/types.js';
import { type HubAuth, requireClientId } from './auth.js';
import { queryParam } from './query.js';
import { bodies, EMPTY_BODY, idParams } from './schemas.js';

export function toRun(r: RunRecord): Run {
  return {
    run_id: r.run_id,
    agent_session_id: r.agent_session_id,
    turn_id: r.turn_id,
    authorization_ref: r.authorization_ref,
    state: r.state,
    created_at: r.created_at,
    ended_at: r.ended_at,
  };
}

export function registerAgentRoutes(app: FastifyInstance, ctx: HubContext, auth: HubAuth): void {
  const onRequest = auth.client;

  app.get('/agent/v1/authorizations', { onRequest, config: { query: ['include'] } }, async (req) => {
    const include = queryParam(req, 'include');
    if (include !== undefined && include !== 'retired')
      throw badRequest(`include takes only "retired" (got ${JSON.stringify(include.slice(0, 64))})`);
    return {
      authorizations: await clientAuthorizations(ctx, requireClientId(req), {
        includeRetired: include === 'retired',
      }),
    };
  });

  app.post<{ Body: ToolSearchRequest }>(
    '/agent/v1/tools/search',
    { onRequest, schema: { body: bodies.toolSearch } },
    async (req) => searchTools(ctx, requireClientId(req), req.body),
  );

  app.post<{ Body: CreateRunRequest }>(
    '/agent/v1/runs',
    { onRequest, schema: { body: bodies.createRun } },
    async (req, reply) => reply.code(201).send(toRun(await openRun(ctx, requireClientId(req), req.body))),
  );

  const ownRun = async (clientId: string, id: string) => {
    const r = await ctx.store.getRun(id);
    if (!r || r.client_id !== clientId) throw notFound('run_not_found', `no run ${id} for this client`);
    return r;
  };
  app.get<{ Params: { id: string } }>(
    '/agent/v1/runs/:id',
    { onRequest, schema: { params: idParams('id') } },
    async (req) => toRun(await ownRun(requireClientId(req), req.params.id)),
  );
  app.post<{ Params: { id: string } }>(
    '/agent/v1/runs/:id/end',
    { onRequest, schema: { params: idParams('id'), body: EMPTY_BODY } },
    async (req) => {
      const r = await ownRun(requireClientId(req), req.params.id);
      return toRun((await ctx.store.endRun(r.run_id, ctx.now().toISOString())) ?? r);
    },
  );

  app.post<{ Body: InvokeRequest }>(
    '/agent/v1/invocations',
    // the invoke's reads carry the configuration generation: a remembered token is confirmed there
    { onRequest, schema: { body: bodies.invoke }, config: { confirmsToken: true } },
    async (req, reply) => {
      const out = await invoke(ctx, requireClientId(req), req.body, auth.confirmer(req));
      return reply.code(out.created ? 201 : 200).send(out.receipt);
    },
  );

  app.get<{ Params: { id: string } }>(
    '/agent/v1/invocations/:id',
    { onRequest, schema: { params: idParams('id') } },
    async (req) => {
      const rec = await loadOwnInvocation(ctx, requireClientId(req), req.params.id);
      const approval = rec.approval_id ? await ctx.store.getApproval(rec.approval_id) : null;
      return toReceipt(rec, approval);
    },
  );

  app.post<{ Params: { id: string } }>(
    '/agent/v1/invocations/:id/resume',
    { onRequest, schema: { params: idParams('id'), body: EMPTY_BODY } },
    async (req) => resume(ctx, requireClientId(req), req.params.id),
  );

  // The operator's attestation of an unresolved call (src-hub/invocations/attest.ts): sends nothing.
  app.post<{ Params: { id: string }; Body: AttestRequest }>(
    '/agent/v1/invocations/:id/attest',
    { onRequest, schema: { params: idParams('id'), body: bodies.attest } },
    async (req) => attest(ctx, requireClientId(req), req.params.id, req.body),
  );
}
