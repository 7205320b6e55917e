/** Task routes: agent (own tasks) and admin (any task). */
import type { FastifyInstance } from 'fastify';
import type { CreateTaskRequest } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { changeTask, createTask, listTaskViews, loadTask, type TaskAction } from '../tasks/service.js';
import { taskView } from '../tasks/view.js';
import { type HubAuth, requireClientId } from './auth.js';
import { bodies, EMPTY_BODY, idParams } from './schemas.js';

const ACTIONS: TaskAction[] = ['pause', 'continue', 'cancel'];

export function registerTaskRoutes(app: FastifyInstance, ctx: HubContext, auth: HubAuth): void {
  const client = { onRequest: auth.client };
  app.post<{ Body: CreateTaskRequest }>(
    '/agent/v1/tasks',
    { ...client, schema: { body: bodies.createTask } },
    async (req, reply) => reply.code(201).send(await createTask(ctx, requireClientId(req), req.body)),
  );
  app.get('/agent/v1/tasks', client, async (req) => ({
    tasks: await listTaskViews(ctx, requireClientId(req)),
  }));
  app.get<{ Params: { id: string } }>(
    '/agent/v1/tasks/:id',
    { ...client, schema: { params: idParams('id') } },
    async (req) => taskView(ctx, await loadTask(ctx, requireClientId(req), req.params.id)),
  );
  for (const action of ACTIONS) {
    app.post<{ Params: { id: string } }>(
      `/agent/v1/tasks/:id/${action}`,
      { ...client, schema: { params: idParams('id'), body: EMPTY_BODY } },
      async (req) => {
        const clientId = requireClientId(req);
        return changeTask(ctx, clientId, req.params.id, action, `client:${clientId}`);
      },
    );
  }

  const admin = { onRequest: auth.admin };
  app.get('/admin/v1/tasks', admin, async () => ({ tasks: await listTaskViews(ctx, null) }));
  app.get<{ Params: { id: string } }>(
    '/admin/v1/tasks/:id',
    { ...admin, schema: { params: idParams('id') } },
    async (req) => taskView(ctx, await loadTask(ctx, null, req.params.id)),
  );
  for (const action of ACTIONS) {
    app.post<{ Params: { id: string } }>(
      `/admin/v1/tasks/:id/${action}`,
      { ...admin, schema: { params: idParams('id'), body: EMPTY_BODY } },
      async (req) => changeTask(ctx, null, req.params.id, action, 'admin'),
    );
  }
}
