/**
 * Unsigned demo control routes under /__demo/ (loopback demo only, never part of a real system):
 * read the ledger, request log and state; set and clear faults; switch the spec variant.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import {
  FaultSpecSchema,
  SpecVariantRequestSchema,
  type ConcurrencyStats,
  type LedgerEntry,
  type RequestLogEntry,
  type SpecVariant,
} from '../types.js';
import type { FaultRegistry } from './faults.js';
import { errorBody } from './operation.js';

export interface ControlSurface {
  ledger(): LedgerEntry[];
  requests(): RequestLogEntry[];
  concurrency(): ConcurrencyStats;
  state(): unknown;
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

export function registerControlRoutes(app: FastifyInstance, surface: ControlSurface): void {
  app.get('/__demo/ledger', async () => ({ ledger: surface.ledger() }));
  app.get('/__demo/requests', async () => ({
    requests: surface.requests(),
    concurrency: surface.concurrency(),
  }));
  app.get('/__demo/state', async () => ({
    state: surface.state(),
    spec_variant: surface.getVariant(),
    faults: surface.faults.list(),
    concurrency: surface.concurrency(),
  }));
  app.post('/__demo/faults', async (request, reply) => {
    const parsed = parseBody(request, FaultSpecSchema);
    if (!parsed.ok) return reply.code(parsed.status).send(parsed.body);
    surface.faults.set(parsed.value);
    return { faults: surface.faults.list() };
  });
  app.delete('/__demo/faults', async () => {
    surface.faults.clear();
    return { faults: surface.faults.list() };
  });
  app.post('/__demo/spec', async (request, reply) => {
    const parsed = parseBody(request, SpecVariantRequestSchema);
    if (!parsed.ok) return reply.code(parsed.status).send(parsed.body);
    surface.setVariant(parsed.value.variant);
    return { spec_variant: surface.getVariant() };
  });
}
