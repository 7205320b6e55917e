/** The one error handler: every failure leaves as `{"error": code, "message": text}`. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { jsonTextDeeperThan, MAX_REQUEST_JSON_DEPTH } from '../../src-shared/json-depth.js';
import { HubError } from '../errors.js';
import { answerBodyTooLarge, frameworkErrorHandler } from './framework-errors.js';
import { StoreUnavailableError } from '../store/errors.js';

interface Mapped {
  status: number;
  error: string;
  message: string;
  retry_after_ms?: number;
}

export function mapError(err: FastifyError | HubError | Error): Mapped {
  if (err instanceof HubError)
    return {
      status: err.status,
      error: err.code,
      message: err.message,
      ...(err.retryAfterMs !== undefined ? { retry_after_ms: err.retryAfterMs } : {}),
    };
  if (err instanceof StoreUnavailableError) {
    return {
      status: 503,
      error: 'store_unavailable',
      message:
        'the Hub cannot reach its store; a call it had not yet recorded as dispatching was not sent, and repeating the same invocation_id never sends it twice',
    };
  }
  const e = err as FastifyError & { validation?: unknown };
  if (e.validation) return { status: 400, error: 'invalid_request', message: e.message };
  switch (e.code) {
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return { status: 400, error: 'invalid_json', message: 'the request body is not valid JSON' };
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return {
        status: 413,
        error: 'body_too_large',
        message: 'the request body exceeds the configured limit',
      };
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return {
        status: 415,
        error: 'unsupported_media_type',
        message: 'request bodies must be application/json',
      };
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return { status: 400, error: 'invalid_request', message: 'invalid content-length' };
    default:
      break;
  }
  if (e.statusCode === 413)
    return { status: 413, error: 'body_too_large', message: 'the request body exceeds the configured limit' };
  if (e.statusCode && e.statusCode >= 400 && e.statusCode < 500) {
    return { status: e.statusCode, error: 'invalid_request', message: e.message };
  }
  return { status: 500, error: 'internal_error', message: 'internal error' };
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, request, reply) => {
    const m = mapError(err);
    if (m.status >= 500) request.log.error({ err }, 'request failed');
    if (m.status === 413) return answerBodyTooLarge(request, reply, m);
    if (m.retry_after_ms !== undefined)
      void reply.header('retry-after', String(Math.max(1, Math.ceil(m.retry_after_ms / 1000))));
    const { status, ...body } = m;
    void reply.code(status).send(body);
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send({ error: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` });
  });
}

export { frameworkErrorHandler };

const badBody = (message: string) => new HubError(400, 'invalid_request', message) as unknown as FastifyError;

/** An own `__proto__` key, or `constructor.prototype`: refused like Fastify's own parser does. */
function hasPrototypeKeys(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const v = stack.pop();
    if (v === null || typeof v !== 'object') continue;
    if (!Array.isArray(v)) {
      if (Object.prototype.hasOwnProperty.call(v, '__proto__')) return true;
      const ctor = (v as Record<string, unknown>).constructor;
      if (
        Object.prototype.hasOwnProperty.call(v, 'constructor') &&
        ctor !== null &&
        typeof ctor === 'object' &&
        Object.prototype.hasOwnProperty.call(ctor, 'prototype')
      )
        return true;
    }
    for (const child of Array.isArray(v) ? v : Object.values(v)) stack.push(child);
  }
  return false;
}

/**
 * JSON bodies. Malformed → invalid_json. An empty body is "no body" (resume and the other empty-body
 * routes send none). Anything else must be a JSON object no deeper than MAX_REQUEST_JSON_DEPTH
 * (checked on the text, before any parser or recursive code sees it) without prototype keys:
 * `null`, arrays, scalars, deeper nesting → 400 invalid_request.
 */
export function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    if (jsonTextDeeperThan(text, MAX_REQUEST_JSON_DEPTH))
      return done(badBody(`the body nests deeper than ${MAX_REQUEST_JSON_DEPTH} levels`), undefined);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      const err = Object.assign(new Error('invalid JSON'), {
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        statusCode: 400,
      });
      return done(err as FastifyError, undefined);
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value))
      return done(
        badBody(
          `the body must be a JSON object, not ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`,
        ),
        undefined,
      );
    if ((text.includes('__proto__') || text.includes('constructor')) && hasPrototypeKeys(value))
      return done(badBody('the body carries a __proto__ or constructor.prototype key'), undefined);
    done(null, value);
  });
}
