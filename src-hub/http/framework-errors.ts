/**
 * The envelope for what never reaches a route: Node's HTTP parser refusing a request (malformed
 * Content-Length, header limits, timeouts, garbage after a body), Fastify's router refusing a path
 * (bad percent-encoding, over-long parameter), and bodies over the limit. Every one is answered
 * `{"error": code, "message": text}` with a code from docs/hub-api.md.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { Logger } from 'pino';

interface Envelope {
  status: number;
  error: string;
  message: string;
}

/** Node's HTTP parser errors (server 'clientError') → an envelope. */
export function clientErrorEnvelope(err: NodeJS.ErrnoException): Envelope {
  switch (err.code) {
    case 'HPE_HEADER_OVERFLOW':
      return {
        status: 431,
        error: 'headers_too_large',
        message: 'the request line and headers exceed the limit (16 KiB)',
      };
    case 'ERR_HTTP_REQUEST_TIMEOUT':
    case 'ERR_HTTP_HEADERS_TIMEOUT':
      return { status: 408, error: 'request_timeout', message: 'the request did not arrive in time' };
    case 'HPE_INVALID_CONTENT_LENGTH':
    case 'HPE_UNEXPECTED_CONTENT_LENGTH':
      return { status: 400, error: 'invalid_request', message: 'malformed or conflicting Content-Length' };
    default:
      return { status: 400, error: 'invalid_request', message: 'malformed HTTP request' };
  }
}

const REASONS: Record<number, string> = {
  400: 'Bad Request',
  408: 'Request Timeout',
  413: 'Payload Too Large',
  414: 'URI Too Long',
  431: 'Request Header Fields Too Large',
};

function rawResponse(e: Envelope): string {
  const body = JSON.stringify({ error: e.error, message: e.message });
  return (
    `HTTP/1.1 ${e.status} ${REASONS[e.status] ?? 'Error'}\r\n` +
    'content-type: application/json; charset=utf-8\r\n' +
    `content-length: ${Buffer.byteLength(body)}\r\n` +
    'connection: close\r\n\r\n' +
    body
  );
}

/** How much of a refused request the Hub keeps reading (and discarding) so its answer is read. */
export const DISCARD_LIMIT = { bytes: 64 * 1024 * 1024, ms: 10_000 };

/**
 * Answers on the raw socket, then closes it cleanly: the rest of what the client is still sending
 * is read and discarded (up to DISCARD_LIMIT) before the Hub's side ends, so the client is not
 * reset before it reads the answer (closing with unread input makes the kernel send a reset).
 */
function answerAndDrain(socket: Socket, e: Envelope, input: NodeJS.ReadableStream | null): void {
  if (socket.writable) socket.write(rawResponse(e));
  let discarded = 0;
  const timer = setTimeout(() => socket.destroy(), DISCARD_LIMIT.ms);
  timer.unref();
  const stop = () => {
    clearTimeout(timer);
    socket.end();
  };
  const count = (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > DISCARD_LIMIT.bytes) socket.destroy();
  };
  socket.once('close', () => clearTimeout(timer));
  if (input) {
    const req = input as NodeJS.ReadableStream & { readableEnded?: boolean; complete?: boolean };
    if (req.readableEnded || req.complete) return stop();
    req.on('data', count);
    req.once('end', stop);
    req.once('error', () => socket.destroy());
    req.resume();
  } else {
    // the parser gave up on this connection: read until the client closes its side
    socket.on('data', count);
    socket.once('end', stop);
    socket.resume();
  }
}

/** Sockets already answered this way: the parser may report more errors on the same connection. */
const answered = new WeakSet<Socket>();

export function createClientErrorHandler(logger: Logger) {
  return (err: NodeJS.ErrnoException, socket: Socket): void => {
    if (err.code === 'ECONNRESET' || socket.destroyed || answered.has(socket)) return;
    answered.add(socket);
    const e = clientErrorEnvelope(err);
    logger.debug({ code: err.code, status: e.status }, 'malformed HTTP request refused');
    // the parser is done with this connection: nothing more goes to it
    socket.removeAllListeners('data');
    socket.pause();
    // A response still being produced for an earlier, complete request on this connection goes
    // first. A timed-out request, or one whose body the parser refused (a bad chunk), is itself
    // the one in flight: it will never be answered otherwise.
    const inFlight = (
      socket as Socket & {
        _httpMessage?: (NodeJS.EventEmitter & { headersSent: boolean; req?: { complete: boolean } }) | null;
      }
    )._httpMessage;
    const ownRequest = e.status === 408 || inFlight?.req?.complete === false;
    if (inFlight && (!ownRequest || inFlight.headersSent))
      inFlight.once('finish', () => answerAndDrain(socket, e, null));
    else answerAndDrain(socket, e, null);
  };
}

/** The body exceeds the limit: answer 413 and drain the rest so the client reliably reads it. */
export function answerBodyTooLarge(request: FastifyRequest, reply: FastifyReply, e: Envelope): void {
  reply.hijack();
  answered.add(request.raw.socket);
  answerAndDrain(request.raw.socket, e, request.raw);
}

/** Router errors Fastify hands to `frameworkErrors` (bad URL encoding, over-long parameters). */
export function frameworkErrorHandler(
  error: FastifyError,
  _request: FastifyRequest,
  reply: FastifyReply,
): void {
  const e: Envelope =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? { status: 414, error: 'uri_too_long', message: 'a path parameter exceeds the limit (512 characters)' }
      : error.code === 'FST_ERR_BAD_URL'
        ? { status: 400, error: 'invalid_request', message: 'the path is not validly percent-encoded' }
        : { status: 400, error: 'invalid_request', message: 'the request could not be routed' };
  void reply.code(e.status).send({ error: e.error, message: e.message });
}

/**
 * An `Expect` header other than `100-continue`: Node would answer a bare 417 itself. Answered with
 * the envelope instead (400, the header is a malformed request for this API); the body, if any, is
 * read and discarded by Node on the kept-alive connection.
 */
export function installExpectationHandler(server: Server): void {
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    const body = JSON.stringify({
      error: 'invalid_request',
      message: 'the only Expect header the Hub understands is 100-continue',
    });
    res.writeHead(400, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
    });
    res.end(body);
  });
}
