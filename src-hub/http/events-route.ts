/**
 * GET /agent/v1/events: Server-Sent Events of this client's invocation, task and authorization
 * changes, read from the durable events table. `id:` is the event's seq; reconnect with
 * `Last-Event-ID` (or `?after=`) to resume without loss. Heartbeat comments keep proxies open.
 * A reader behind the client's retention horizon (events pruned, see ../events/retention.ts) gets a
 * `stream.reset` event first, never a silent gap.
 */
import type { FastifyInstance } from 'fastify';
import type { HubContext } from '../context.js';
import { badRequest } from '../errors.js';
import { type HubAuth, requireClientId } from './auth.js';

export function registerEventRoutes(
  app: FastifyInstance,
  ctx: HubContext,
  auth: HubAuth,
  streams: Set<() => void>,
): void {
  app.get<{ Querystring: Record<string, unknown> }>(
    '/agent/v1/events',
    { onRequest: auth.client },
    async (req, reply) => {
      const clientId = requireClientId(req);
      const fromHeader = req.headers['last-event-id'];
      const raw =
        typeof fromHeader === 'string'
          ? fromHeader
          : typeof req.query.after === 'string'
            ? req.query.after
            : '0';
      if (!/^\d{1,15}$/.test(raw)) throw badRequest('Last-Event-ID must be a non-negative integer');
      let last = Number(raw);

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');

      let closed = false;
      let pumping = false;
      let again = false;
      const pump = async () => {
        if (closed) return;
        if (pumping) {
          again = true;
          return;
        }
        pumping = true;
        try {
          do {
            again = false;
            for (;;) {
              const horizon = await ctx.store.eventHorizon(clientId);
              if (last < horizon) {
                if (closed) return;
                res.write(
                  `id: ${horizon}\nevent: stream.reset\ndata: ${JSON.stringify({ seq: horizon, type: 'stream.reset', reason: 'events_pruned', pruned_through: horizon })}\n\n`,
                );
                last = horizon;
              }
              const batch = await ctx.store.listEvents(clientId, last, 500);
              for (const e of batch) {
                if (closed) return;
                res.write(
                  `id: ${e.seq}\nevent: ${e.type}\ndata: ${JSON.stringify({ seq: e.seq, ...e.payload })}\n\n`,
                );
                last = e.seq;
              }
              if (batch.length < 500) break;
            }
          } while (again && !closed);
        } catch (err) {
          ctx.logger.warn({ err: String(err) }, 'event stream read failed');
        } finally {
          pumping = false;
        }
      };
      const unsubscribe = ctx.bus.subscribe(clientId, () => void pump());
      const heartbeat = setInterval(() => res.write(': heartbeat\n\n'), ctx.settings.heartbeatMs);
      // Other processes (the operator CLI) write to the same store: poll for their events too.
      const poll = setInterval(() => void pump(), ctx.settings.eventPollMs);
      const close = () => {
        if (closed) return;
        closed = true;
        unsubscribe();
        clearInterval(heartbeat);
        clearInterval(poll);
        streams.delete(close);
        res.end();
      };
      streams.add(close);
      req.raw.on('close', close);
      res.on('close', close);
      await pump();
    },
  );
}
