/**
 * Unsigned demo control routes under /__demo/ (loopback demo only, never part of a real system):
 * read the ledger, request log and state; set and clear faults; switch the spec variant; reset the
 * business data to the seed.
 *
 * Guarded like the browser host: the Host header must name the address the system listens on (a
 * DNS-rebound name is 421 `misdirected`), a browser's Origin must be the system's own (403
 * `forbidden_origin`), and a body must be `application/json` (415 `unsupported_media_type`), so a
 * web page cannot set faults with a simple cross-origin `text/plain` POST.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  DemoDataResetRequestSchema,
  FaultSpecSchema,
  SpecVariantRequestSchema,
  type ConcurrencyStats,
  type DemoDataReset,
  type DemoDataStatus,
  type LedgerEntry,
  type RequestLogEntry,
  type SpecVariant,
} from '../types.js';
import { DemoDataError, DemoDataWriteError } from './data-errors.js';
import type { FaultRegistry } from './faults.js';
import { errorBody } from './operation.js';

export interface ControlSurface {
  ledger(): LedgerEntry[];
  requests(): RequestLogEntry[];
  concurrency(): ConcurrencyStats;
  state(): unknown;
  data(): DemoDataStatus;
  resetData(): DemoDataReset;
  faults: FaultRegistry;
  getVariant(): SpecVariant;
  setVariant(v: SpecVariant): void;
}

type Parsed<T> =
  { ok: true; value: T } | { ok: false; status: number; body: { error: string; message: string } };

function parseBody<T>(request: FastifyRequest, schema: z.ZodType<T>): Parsed<T> {
  const raw = typeof request.body === 'string' ? request.body : '';
  let json: unknown;
  try {
    json = JSON.parse(raw);
  } catch {
    return { ok: false, status: 400, body: errorBody('invalid_json', 'body is not valid JSON') };
  }
  const result = schema.safeParse(json);
  if (!result.success) {
    const issue = result.error.issues[0];
    const where = issue?.path.length ? issue.path.join('.') : 'body';
    return {
      ok: false,
      status: 400,
      body: errorBody('invalid_request', `${where}: ${issue?.message ?? 'invalid'}`),
    };
  }
  return { ok: true, value: result.data };
}

/** The `host:port` the system answers to, known once it listens. */
export type OwnAddress = () => string | null;

function guard(own: OwnAddress) {
  return async (request: FastifyRequest, reply: FastifyReply) => {
    const host = own();
    if (host === null || request.headers.host !== host)
      return reply.code(421).send(errorBody('misdirected', 'Wrong Host header.'));
    const origin = request.headers.origin;
    if (origin !== undefined && origin !== `http://${host}`)
      return reply.code(403).send(errorBody('forbidden_origin', 'Cross-origin requests are refused.'));
    if (request.method === 'POST') {
      const type = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
      if (type !== 'application/json')
        return reply
          .code(415)
          .send(errorBody('unsupported_media_type', 'The body must be application/json.'));
    }
  };
}

export function registerControlRoutes(app: FastifyInstance, surface: ControlSurface, own: OwnAddress): void {
  const onRequest = guard(own);
  app.get('/__demo/ledger', { onRequest }, async (_request, reply) => {
    try {
      return { ledger: surface.ledger() };
    } catch (err) {
      if (!(err instanceof DemoDataError)) throw err;
      return reply.code(503).send(errorBody('demo_data_unavailable', err.message));
    }
  });
  app.get('/__demo/requests', { onRequest }, async () => ({
    requests: surface.requests(),
    concurrency: surface.concurrency(),
  }));
  app.get('/__demo/state', { onRequest }, async () => ({
    state: surface.state(),
    spec_variant: surface.getVariant(),
    faults: surface.faults.list(),
    concurrency: surface.concurrency(),
    data: surface.data(),
  }));
  // Business data back to the seed (ledger and settled keys kept); body `{}`.
  app.post('/__demo/reset', { onRequest }, async (request, reply) => {
    const parsed = parseBody(request, DemoDataResetRequestSchema);
    if (!parsed.ok) return reply.code(parsed.status).send(parsed.body);
    try {
      return { reset: surface.resetData() };
    } catch (err) {
      if (!(err instanceof DemoDataWriteError || err instanceof DemoDataError)) throw err;
      return reply.code(500).send(errorBody('demo_data_reset_failed', err.message));
    }
  });
  app.post('/__demo/faults', { onRequest }, async (request, reply) => {
    const parsed = parseBody(request, FaultSpecSchema);
    if (!parsed.ok) return reply.code(parsed.status).send(parsed.body);
    surface.faults.set(parsed.value);
    return { faults: surface.faults.list() };
  });
  app.delete('/__demo/faults', { onRequest }, async () => {
    surface.faults.clear();
    return { faults: surface.faults.list() };
  });
  app.post('/__demo/spec', { onRequest }, async (request, reply) => {
    const parsed = parseBody(request, SpecVariantRequestSchema);
    if (!parsed.ok) return reply.code(parsed.status).send(parsed.body);
    surface.setVariant(parsed.value.variant);
    return { spec_variant: surface.getVariant() };
  });
}
