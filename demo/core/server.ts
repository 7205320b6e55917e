/**
 * One demo business system as a real Fastify server: signed business routes built from operation
 * definitions, idempotency, the append-only write ledger, the request log, fault injection, the
 * operations look-up, the published spec and the unsigned demo control routes. What a write changes
 * is kept by a business store: in memory, or in a SQLite file when `dataFile` is given.
 */
import type { AddressInfo, Socket } from 'node:net';
import Fastify, { type FastifyReply, type FastifyRequest } from 'fastify';
import { sha256Hex } from '../../src-shared/digest.js';
import { SIGNATURE_HEADERS } from '../../src-shared/signing.js';
import type {
  DemoDataReset,
  DemoSystemHandle,
  FaultSpec,
  RequestKind,
  RequestLogEntry,
  SpecVariant,
} from '../types.js';
import { createNonceCache, type SignatureV2Failure } from '../../src-shared/signing-v2.js';
import { checkSignature, header } from './auth.js';
import { registerControlRoutes } from './control-routes.js';
import { createFaultRegistry } from './faults.js';
import { buildOpenApi } from './openapi.js';
import { errorBody, fastifyPath, type DemoOperationDef, type OperationResult } from './operation.js';
import { createMemoryStore, type BusinessData, type BusinessStore } from './business-store.js';
import { DemoDataError } from './data-errors.js';
import { createSystemRecords } from './records.js';
import { createSqliteStore } from './sqlite-store.js';
import { compileValidators, describeErrors, type OperationValidators } from './validation.js';

export const SPEC_PATH = '/.well-known/bailing/tools.json';
export const LOOKUP_PREFIX = '/.well-known/bailing/operations/';
export const BODY_LIMIT_BYTES = 1024 * 1024;

export interface DemoSystemDefinition<S> {
  systemId: string;
  name: string;
  secret: string;
  description: string;
  port?: number;
  host?: string;
  /** The operations for a spec variant. Every variant must keep the same (method, path) routes. */
  operations(variant: SpecVariant): DemoOperationDef[];
  /** The business state as `/__demo/state` shows it. */
  state(): unknown;
  /** The business state the store keeps (what a write changes). */
  data: BusinessData<S>;
  /** A SQLite file for the business data (made and seeded on first start); absent: in memory. */
  dataFile?: string;
  /** A business store of the caller's (tests inject storage failures); overrides `dataFile`. */
  store?: BusinessStore<S>;
  /** Told when the data file cannot be used (the system then refuses every call until a reset). */
  onDataProblem?: (err: DemoDataError) => void;
  /** Clock used for signature freshness (tests may skew it). */
  nowSeconds?: () => number;
}

interface RouteConfig {
  kind: RequestKind;
  operation?: string;
}

const SIGNATURE_MESSAGES: Record<SignatureV2Failure, string> = {
  signature_missing: 'signature v2 headers are missing or malformed (a v1 signature alone is not accepted)',
  signature_invalid: 'request signature does not match',
  timestamp_expired: 'request timestamp is outside the accepted window',
  audience_mismatch: 'the request was signed for another system',
  nonce_reused: 'this request was already received (its nonce was seen within the window)',
};

/** Opens the business store; a file that cannot be used leaves the system up but refusing (never reseeded). */
function openStore<S>(def: DemoSystemDefinition<S>): BusinessStore<S> {
  const store: BusinessStore<S> = def.store
    ? def.store
    : def.dataFile
      ? createSqliteStore({ file: def.dataFile, systemId: def.systemId, schema: def.data.schema })
      : createMemoryStore();
  try {
    def.data.restore(store.open(() => def.data.seed(null)));
  } catch (err) {
    if (!(err instanceof DemoDataError)) throw err;
    def.onDataProblem?.(err);
  }
  return store;
}

const DATA_UNAVAILABLE_MESSAGE =
  "this system's data file cannot be used; nothing was read or written (reset the demo data to start again from the seed)";

export async function startDemoSystem<S>(def: DemoSystemDefinition<S>): Promise<DemoSystemHandle> {
  if (def.secret.length < 16) throw new Error('demo system secret must be at least 16 characters');
  const nowSeconds = def.nowSeconds ?? (() => Math.floor(Date.now() / 1000));
  const records = createSystemRecords();
  const store = openStore(def);
  const dataUsable = () => store.status().state === 'ok';
  // A business call is refused with a 4xx: the system knows nothing was read or written, so the Hub
  // may settle it as failed. The look-up answers 503 instead: it cannot tell what happened before.
  const refuseUnusableData = (reply: FastifyReply, status: 409 | 503) =>
    reply.code(status).send(errorBody('demo_data_unavailable', DATA_UNAVAILABLE_MESSAGE));
  const verifier = { systemId: def.systemId, secret: def.secret, nonces: createNonceCache() };
  const faults = createFaultRegistry();
  let variant: SpecVariant = 'v1';
  let closing = false;
  const hungSockets = new Set<Socket>();
  const shutdown = new AbortController();
  const logs = new WeakMap<FastifyRequest, RequestLogEntry>();

  const validatorCache = new Map<string, OperationValidators>();
  const currentOperation = (
    operationId: string,
  ): { op: DemoOperationDef; validators: OperationValidators } => {
    const op = def.operations(variant).find((o) => o.operationId === operationId);
    if (!op) throw new Error(`operation ${operationId} missing from variant ${variant}`);
    const cacheKey = `${variant}:${operationId}`;
    let validators = validatorCache.get(cacheKey);
    if (!validators) {
      validators = compileValidators(op);
      validatorCache.set(cacheKey, validators);
    }
    return { op, validators };
  };

  // maxParamLength: idempotency keys (invocation ids) may be 128 characters long; Fastify's default is 100.
  const app = Fastify({
    logger: false,
    forceCloseConnections: true,
    bodyLimit: BODY_LIMIT_BYTES,
    routerOptions: { maxParamLength: 512 },
  });
  app.removeAllContentTypeParsers();
  // Keep the exact body text: the signature is computed over these bytes.
  app.addContentTypeParser('*', { parseAs: 'string' }, (_req, body, done) => done(null, body));

  app.setErrorHandler((err: { statusCode?: number; code?: string; message: string }, _request, reply) => {
    const status = err.statusCode ?? 500;
    if (status === 413)
      return reply.code(413).send(errorBody('body_too_large', `body exceeds ${BODY_LIMIT_BYTES} bytes`));
    if (status >= 400 && status < 500)
      return reply.code(status).send(errorBody('invalid_request', err.message));
    return reply.code(500).send(errorBody('internal_error', 'internal error'));
  });
  app.setNotFoundHandler((request, reply) =>
    reply
      .code(404)
      .send(errorBody('not_found', `no route ${request.method} ${request.url.split('?')[0] ?? ''}`)),
  );

  // Request log + concurrency: every request except the control routes.
  app.addHook('onRequest', async (request, reply) => {
    if (request.url.startsWith('/__demo/')) return;
    const config = (request.routeOptions.config ?? {}) as Partial<RouteConfig>;
    const kind: RequestKind = config.kind ?? 'other';
    const countsInFlight = kind === 'operation';
    const entry = records.startRequest(
      {
        method: request.method,
        url: request.raw.url ?? request.url,
        kind,
        operation: config.operation ?? null,
        idempotency_key: header(request.headers, SIGNATURE_HEADERS.idempotencyKey) ?? null,
        job_id: header(request.headers, SIGNATURE_HEADERS.jobId) ?? null,
        on_behalf_of: header(request.headers, SIGNATURE_HEADERS.onBehalfOf) ?? null,
        auth: null,
        committed: false,
        fault: null,
        outcome: 'pending',
        status: null,
      },
      countsInFlight,
    );
    logs.set(request, entry);
    let done = false;
    reply.raw.on('finish', () => {
      entry.status = reply.raw.statusCode;
      if (entry.outcome === 'pending') entry.outcome = 'answered';
    });
    reply.raw.on('close', () => {
      if (entry.outcome === 'pending') entry.outcome = 'closed';
      if (countsInFlight && !done) {
        done = true;
        records.finishInFlight();
      }
    });
  });

  const rawBodyOf = (request: FastifyRequest): string =>
    typeof request.body === 'string' ? request.body : '';

  const authenticate = (request: FastifyRequest, reply: FastifyReply): boolean => {
    const check = checkSignature(
      {
        method: request.method,
        url: request.raw.url ?? request.url,
        rawBody: rawBodyOf(request),
        headers: request.headers,
      },
      verifier,
      nowSeconds(),
    );
    const entry = logs.get(request);
    if (entry) entry.auth = check.ok ? 'valid' : check.code;
    if (!check.ok) {
      void reply.code(401).send(errorBody(check.code, SIGNATURE_MESSAGES[check.code]));
      return false;
    }
    return true;
  };

  /** A fault's delay; shutdown ends it early. The abort listener goes with it (no build-up across requests). */
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        shutdown.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      shutdown.signal.addEventListener('abort', done, { once: true });
    });

  /** Parse, check and run one operation. Synchronous, so a commit is atomic with its replay check. */
  const evaluate = (
    op: DemoOperationDef,
    validators: OperationValidators,
    request: FastifyRequest,
    jobId: string,
    onBehalfOf: string,
  ): OperationResult => {
    if (op.capability.subject?.required && onBehalfOf.trim() === '') {
      return {
        status: 403,
        body: errorBody('subject_required', 'this operation needs an x-bailing-on-behalf-of subject'),
      };
    }
    const raw = rawBodyOf(request);
    let body: Record<string, unknown> | null = null;
    if (op.body && validators.body) {
      if (raw.trim() === '') {
        if (op.body.required)
          return { status: 400, body: errorBody('invalid_request', 'a JSON body is required') };
      } else {
        let parsed: unknown;
        try {
          parsed = JSON.parse(raw);
        } catch {
          return { status: 400, body: errorBody('invalid_json', 'body is not valid JSON') };
        }
        if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
          return { status: 400, body: errorBody('invalid_request', 'body must be a JSON object') };
        }
        body = parsed as Record<string, unknown>;
        const refused = op.precheck?.(body);
        if (refused) return refused;
        if (!validators.body(body)) {
          return { status: 400, body: errorBody('invalid_request', describeErrors('body', validators.body)) };
        }
      }
    } else if (raw.trim() !== '') {
      return { status: 400, body: errorBody('invalid_request', 'this operation takes no body') };
    }
    const params = { ...(request.params as Record<string, unknown>) };
    if (!validators.params(params)) {
      return { status: 400, body: errorBody('invalid_request', describeErrors('path', validators.params)) };
    }
    const query = { ...(request.query as Record<string, unknown>) };
    if (!validators.query(query)) {
      return { status: 400, body: errorBody('invalid_request', describeErrors('query', validators.query)) };
    }
    return op.execute({ args: { ...params, ...query, ...(body ?? {}) }, body, jobId, onBehalfOf });
  };

  const handleOperation = async (operationId: string, request: FastifyRequest, reply: FastifyReply) => {
    const entry = logs.get(request);
    if (!authenticate(request, reply)) return reply;
    if (!dataUsable()) return refuseUnusableData(reply, 409);
    const { op: initialOp } = currentOperation(operationId);
    const key = header(request.headers, SIGNATURE_HEADERS.idempotencyKey) ?? '';
    const jobId = header(request.headers, SIGNATURE_HEADERS.jobId) ?? '';
    const onBehalfOf = header(request.headers, SIGNATURE_HEADERS.onBehalfOf) ?? '';
    if (initialOp.write && !/^[\x21-\x7e]{8,256}$/.test(key)) {
      return reply
        .code(400)
        .send(
          errorBody(
            'idempotency_key_required',
            'writes need an x-bailing-idempotency-key (8-256 visible ASCII characters)',
          ),
        );
    }
    const fingerprint = sha256Hex(
      `${request.method} ${request.raw.url ?? request.url} ${rawBodyOf(request)}`,
    );

    /** A settled key answers with its stored result and writes nothing. */
    const replay = (): FastifyReply | null => {
      if (!initialOp.write) return null;
      const stored = store.settled(key);
      if (!stored) return null;
      if (stored.fingerprint !== fingerprint || stored.operation !== operationId) {
        return reply
          .code(409)
          .send(errorBody('idempotency_key_reused', 'this idempotency key was used for a different request'));
      }
      if (entry) entry.outcome = 'replayed';
      return reply.code(stored.http_status).header('x-bailing-idempotent-replay', 'true').send(stored.result);
    };

    const first = replay();
    if (first) return first;

    const fault: FaultSpec | null = faults.takeForOperation(operationId);
    if (entry) entry.fault = fault?.kind ?? null;
    if (fault?.kind === 'delay') {
      await sleep(fault.delay_ms ?? 0);
      if (closing) {
        reply.hijack();
        request.raw.socket.destroy();
        return reply;
      }
      const again = replay();
      if (again) return again;
    }
    if (fault?.kind === 'fail_before_commit') {
      return reply
        .code(500)
        .send(errorBody('internal_error', 'injected failure before commit; nothing was written'));
    }

    const { op, validators } = currentOperation(operationId);
    const result: OperationResult =
      fault?.kind === 'reject'
        ? {
            status: fault.status ?? 422,
            body: errorBody(fault.code ?? 'rejected', 'injected rejection; nothing was written'),
          }
        : evaluate(op, validators, request, jobId, onBehalfOf);

    if (op.write) {
      const ok = result.status >= 200 && result.status < 300;
      const changed = ok && result.write !== undefined;
      try {
        // State, ledger entry and settled key in one transaction, on disk before any answer.
        store.commit({
          state: changed ? def.data.snapshot() : null,
          ledger:
            changed && result.write
              ? {
                  idempotency_key: key,
                  operation: operationId,
                  target: result.write.target,
                  changes: result.write.changes,
                  job_id: jobId,
                  on_behalf_of: onBehalfOf,
                }
              : null,
          outcome: {
            idempotency_key: key,
            operation: operationId,
            status: ok ? 'succeeded' : 'failed',
            http_status: result.status,
            result: result.body,
            fingerprint,
          },
        });
      } catch {
        // Nothing was kept: the in-memory state goes back to the last committed one, the key stays unsettled.
        def.data.restore(store.committed());
        return reply
          .code(500)
          .send(errorBody('demo_data_write_failed', 'the write could not be stored; nothing was written'));
      }
      if (changed && entry) entry.committed = true;
    }

    if (fault?.kind === 'drop_after_commit') {
      if (entry) entry.outcome = 'dropped';
      reply.hijack();
      request.raw.socket.destroy();
      return reply;
    }
    if (fault?.kind === 'hang_after_commit') {
      if (entry) entry.outcome = 'hung';
      reply.hijack();
      hungSockets.add(request.raw.socket);
      request.raw.socket.on('close', () => hungSockets.delete(request.raw.socket));
      return reply;
    }
    if (fault?.kind === 'fail_after_commit') {
      return reply.code(500).send(errorBody('internal_error', 'injected failure after commit'));
    }
    return reply.code(result.status).send(result.body);
  };

  for (const op of def.operations('v1')) {
    const config: RouteConfig = { kind: 'operation', operation: op.operationId };
    app.route({
      method: op.method,
      url: fastifyPath(op.path),
      config,
      handler: (request, reply) => handleOperation(op.operationId, request, reply),
    });
  }

  app.get(
    `${LOOKUP_PREFIX}:key`,
    { config: { kind: 'lookup' } satisfies RouteConfig },
    async (request, reply) => {
      if (!authenticate(request, reply)) return reply;
      // Never "not found" for a file that cannot be read: that would claim the call never happened.
      if (!dataUsable()) return refuseUnusableData(reply, 503);
      const key = (request.params as { key: string }).key;
      const stored = store.settled(key);
      if (faults.takeForLookup(stored?.operation ?? null)) {
        return reply.code(503).send(errorBody('lookup_unavailable', 'the operations look-up is unavailable'));
      }
      if (!stored) {
        return reply
          .code(404)
          .send(errorBody('operation_not_found', 'no operation was committed with this idempotency key'));
      }
      return reply.send({
        idempotency_key: stored.idempotency_key,
        operation: stored.operation,
        status: stored.status,
        http_status: stored.http_status,
        result: stored.result,
        recorded_at: stored.recorded_at,
      });
    },
  );

  const spec = () =>
    buildOpenApi({
      systemId: def.systemId,
      name: def.name,
      version: variant === 'v1' ? '1.0.0' : '1.1.0',
      description: def.description,
      operations: def.operations(variant),
    });
  app.get(SPEC_PATH, { config: { kind: 'spec' } satisfies RouteConfig }, async (request) => {
    const entry = logs.get(request);
    if (entry) entry.auth = 'not_required';
    return spec();
  });

  const resetData = (): DemoDataReset => {
    const seed = def.data.seed(dataUsable() ? store.committed() : null);
    const { set_aside } = store.reset(seed);
    def.data.restore(seed);
    return { system_id: def.systemId, reset: true, set_aside, status: store.status() };
  };
  const ledger = () => store.ledger();

  let ownAddress: string | null = null;
  registerControlRoutes(
    app,
    {
      ledger,
      requests: () => records.requests(),
      concurrency: () => records.concurrency(),
      state: () => def.state(),
      data: () => store.status(),
      resetData,
      faults,
      getVariant: () => variant,
      setVariant: (v) => {
        variant = v;
      },
    },
    () => ownAddress,
  );

  try {
    await app.listen({ port: def.port ?? 0, host: def.host ?? '127.0.0.1' });
  } catch (err) {
    store.close();
    throw err;
  }
  const address = app.server.address() as AddressInfo;
  const hostForUrl = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  ownAddress = `${hostForUrl}:${address.port}`;

  return {
    systemId: def.systemId,
    name: def.name,
    url: `http://${hostForUrl}:${address.port}`,
    secret: def.secret,
    ledger,
    requests: () => records.requests(),
    concurrency: () => records.concurrency(),
    state: () => structuredClone(def.state()),
    dataStatus: () => store.status(),
    resetData,
    faults: { set: (f) => faults.set(f), clear: () => faults.clear(), list: () => faults.list() },
    setSpecVariant: (v) => {
      variant = v;
    },
    specVariant: () => variant,
    close: async () => {
      if (closing) return;
      closing = true;
      shutdown.abort();
      for (const s of hungSockets) s.destroy();
      await app.close();
      store.close();
    },
  };
}
