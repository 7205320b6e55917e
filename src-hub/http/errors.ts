/** The one error handler: every failure leaves as `{"error": code, "message": text}`. */
import type { FastifyError, FastifyInstance } from 'fastify';
import { HubError } from '../errors.js';

interface Mapped {
  status: number;
  error: string;
  message: string;
}

export function mapError(err: FastifyError | HubError | Error): Mapped {
  if (err instanceof HubError) return { status: err.status, error: err.code, message: err.message };
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
    void reply.code(m.status).send({ error: m.error, message: m.message });
  });
  app.setNotFoundHandler((request, reply) => {
    void reply
      .code(404)
      .send({ error: 'not_found', message: `no route ${request.method} ${request.url.split('?')[0]}` });
  });
}

/** JSON bodies: malformed -> invalid_json; an empty body is "no body" (resume sends none). */
export function installJsonParser(app: FastifyInstance): void {
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') return done(null, undefined);
    try {
      done(null, JSON.parse(text));
    } catch {
      const err = Object.assign(new Error('invalid JSON'), {
        code: 'FST_ERR_CTP_INVALID_JSON_BODY',
        statusCode: 400,
      });
      done(err as FastifyError, undefined);
    }
  });
}
