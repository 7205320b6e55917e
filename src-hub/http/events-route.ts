/**
 * GET /agent/v1/events: Server-Sent Events of this client's invocation, task and authorization
 * changes, read from the durable events table. `id:` is the event's seq; reconnect with
 * `Last-Event-ID` (or `?after=`) to resume without loss. Streams, their backpressure, the cap per
 * client and the shared heartbeat and poll live in ../events/ (stream-registry.ts, sse-stream.ts).
 */
import type { FastifyInstance } from 'fastify';
import { badRequest } from '../errors.js';
import type { StreamRegistry } from '../events/stream-registry.js';
import { type HubAuth, requireClientId } from './auth.js';
import { queryParam } from './query.js';

export function registerEventRoutes(app: FastifyInstance, auth: HubAuth, streams: StreamRegistry): void {
  app.get(
    '/agent/v1/events',
    { onRequest: auth.client, config: { query: ['after'] } },
    async (req, reply) => {
      const clientId = requireClientId(req);
      const fromHeader = req.headers['last-event-id'];
      const raw = typeof fromHeader === 'string' ? fromHeader : (queryParam(req, 'after') ?? '0');
      if (!/^\d{1,15}$/.test(raw)) throw badRequest('Last-Event-ID must be a non-negative integer');
      streams.checkCapacity(clientId);
      // HEAD describes the stream without opening one (a HEAD answer has no body to stream)
      if (req.method === 'HEAD')
        return reply.code(200).header('content-type', 'text/event-stream; charset=utf-8').send();

      reply.hijack();
      const res = reply.raw;
      res.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        'x-accel-buffering': 'no',
      });
      res.write(': connected\n\n');
      streams.open(clientId, res, Number(raw));
    },
  );
}
