// Each request's logger is made lazily: nothing is built for a request that logs nothing, and what
// is logged is the line the eager child would have written (request id bound, redaction applied).
import { Writable } from 'node:stream';
import pino from 'pino';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { requestLoggerFactory } from '../../src-hub/http/request-logger.js';
import type { FastifyBaseLogger } from 'fastify';
import { startEnv, type HubEnv } from './helpers.js';

function sink(level: string) {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _enc, done) {
      for (const l of chunk.toString().split('\n'))
        if (l.trim()) lines.push(JSON.parse(l) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level, redact: { paths: ['*.token'], censor: '[redacted]' } }, stream);
  return { logger, lines };
}

const flush = () => new Promise((r) => setImmediate(r));
const withoutTime = (l: Record<string, unknown>) => ({ ...l, time: 0 });

describe('the lazy request logger', () => {
  it('makes no child for a request that logs below the level, and the same lines as an eager child', async () => {
    const lazy = sink('warn');
    const eager = sink('warn');
    const childOf = vi.spyOn(lazy.logger, 'child');
    const log = requestLoggerFactory(lazy.logger as unknown as FastifyBaseLogger, { reqId: 'req-1' }, {});
    log.info({ req: { url: '/x' } }, 'incoming request');
    log.debug('nothing');
    expect(childOf).not.toHaveBeenCalled();
    expect(log.level).toBe('warn');

    log.error({ detail: { token: 'secret-token' } }, 'request failed');
    log.warn('twice');
    expect(childOf).toHaveBeenCalledTimes(1);
    const child = eager.logger.child({ reqId: 'req-1' });
    child.error({ detail: { token: 'secret-token' } }, 'request failed');
    child.warn('twice');
    await flush();
    expect(lazy.lines.map(withoutTime)).toEqual(eager.lines.map(withoutTime));
    expect(lazy.lines[0]).toMatchObject({ reqId: 'req-1', level: 50, detail: { token: '[redacted]' } });

    const grand = log.child({ part: 'x' });
    grand.warn('from a grandchild');
    await flush();
    expect(lazy.lines[2]).toMatchObject({ reqId: 'req-1', part: 'x', msg: 'from a grandchild' });
  });

  it('a route with its own level gets an eager child at that level', () => {
    const { logger } = sink('warn');
    const log = requestLoggerFactory(
      logger as unknown as FastifyBaseLogger,
      { reqId: 'r' },
      { level: 'debug' },
    );
    expect(log.level).toBe('debug');
  });
});

describe('request logging through the Hub', () => {
  let env: HubEnv | null = null;
  afterEach(async () => {
    await env?.close();
    env = null;
  });

  it('at info, each request logs its start and end under one request id', async () => {
    const { logger, lines } = sink('info');
    env = await startEnv({ logger });
    const r = await env.agent('GET', '/agent/v1/authorizations');
    expect(r.status).toBe(200);
    await flush();
    const incoming = lines.filter((l) => l.msg === 'incoming request');
    const completed = lines.filter((l) => l.msg === 'request completed');
    const last = incoming.at(-1)!;
    expect(last.reqId).toEqual(expect.any(String));
    expect(completed.some((l) => l.reqId === last.reqId)).toBe(true);
  });

  it('at warn, answered and refused requests log nothing', async () => {
    const { logger, lines } = sink('warn');
    env = await startEnv({ logger });
    const before = lines.length;
    expect((await env.agent('GET', '/agent/v1/authorizations')).status).toBe(200);
    expect((await env.agent('GET', '/agent/v1/nowhere')).status).toBe(404);
    await flush();
    expect(lines.slice(before).filter((l) => l.reqId !== undefined)).toEqual([]);
  });
});
