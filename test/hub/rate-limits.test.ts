// Per-client request rate limits on the agent and admin APIs (coded 429 with retry_after_ms and
// Retry-After), set from the config file, and the bound on failed token attempts per address that
// does not lock out a client whose token the Hub already knows.
import { afterEach, describe, expect, it } from 'vitest';
import { HubErrorBodySchema } from '../../src-shared/hub-api.js';
import { http, startEnv, token, type HubEnv } from './helpers.js';

let env: HubEnv | null = null;
afterEach(async () => {
  await env?.close();
  env = null;
});

const sleep = (ms: number) => new Promise((res) => setTimeout(res, ms));

function expect429(r: { status: number; body: unknown; headers: Headers }, code: string): number {
  expect(r.status).toBe(429);
  const body = HubErrorBodySchema.parse(r.body);
  expect(body.error).toBe(code);
  expect(body.retry_after_ms).toBeGreaterThan(0);
  expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  return body.retry_after_ms as number;
}

describe('request rate limits', () => {
  it('a client over its rate gets 429 rate_limited; other clients and the admin are unaffected; it recovers', async () => {
    const e = (env = await startEnv({
      settings: {
        rateLimits: {
          // slow refills, so a loaded machine cannot refill a token between two requests
          agent: { perSecond: 0.5, burst: 4 },
          admin: { perSecond: 0.5, burst: 3 },
          authFailures: null,
        },
      },
    }));
    for (let i = 0; i < 4; i++) expect((await e.agent('GET', '/agent/v1/tasks')).status).toBe(200);
    const wait = expect429(await e.agent('GET', '/agent/v1/tasks'), 'rate_limited');
    expect(wait).toBeLessThanOrEqual(2_000);
    // SSE opening counts too
    expect429(await http(e.hub.url, 'GET', '/agent/v1/events', { token: e.desk }), 'rate_limited');
    // and the invoke route, whose hook lets a remembered token through without reading the store
    expect429(await e.agent('POST', '/agent/v1/invocations', {}), 'rate_limited');
    expect((await e.agent('GET', '/agent/v1/tasks', undefined, e.other)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await e.admin('GET', '/admin/v1/tasks')).status).toBe(200);
    expect429(await e.admin('GET', '/admin/v1/tasks'), 'rate_limited');
    await sleep(wait + 50);
    expect((await e.agent('GET', '/agent/v1/tasks')).status).toBe(200);
  });

  it('the config file sets the limits (null turns one off)', async () => {
    const e = (env = await startEnv());
    await e.hub.close();
    await e.restart({
      config: {
        ...e.config,
        rate_limits: { agent: { per_second: 0.1, burst: 2 }, admin: null, failed_auth_per_address: null },
      },
    });
    expect((await e.agent('GET', '/agent/v1/tasks')).status).toBe(200);
    expect((await e.agent('GET', '/agent/v1/tasks')).status).toBe(200);
    expect429(await e.agent('GET', '/agent/v1/tasks'), 'rate_limited');
    for (let i = 0; i < 150; i++) expect((await e.admin('GET', '/admin/v1/tasks')).status).toBe(200);
  });
});

describe('failed token attempts', () => {
  it('past the bound an address gets 429 without its tokens being checked, except tokens already verified', async () => {
    const e = (env = await startEnv({
      settings: {
        rateLimits: { agent: null, admin: null, authFailures: { count: 5, windowMs: 4_000 } },
      },
    }));
    expect((await e.agent('GET', '/agent/v1/tasks')).status).toBe(200); // desk's token is now known
    expect((await e.admin('GET', '/admin/v1/tasks')).status).toBe(200);
    for (let i = 0; i < 5; i++) {
      const r = await e.agent('GET', '/agent/v1/tasks', undefined, token('desk'));
      expect(r.status).toBe(401);
    }
    // the guesser is stopped: not even a correct guess would be looked at now
    expect429(await e.agent('GET', '/agent/v1/tasks', undefined, token('desk')), 'too_many_auth_failures');
    expect429(await e.agent('GET', '/agent/v1/tasks', undefined, e.other), 'too_many_auth_failures');
    expect429(
      await http(e.hub.url, 'GET', '/admin/v1/tasks', { token: 'x'.repeat(32) }),
      'too_many_auth_failures',
    );
    // clients whose tokens this Hub already verified keep working
    expect((await e.agent('GET', '/agent/v1/tasks')).status).toBe(200);
    expect((await e.admin('GET', '/admin/v1/tasks')).status).toBe(200);
    // a request without a token is not a guess
    expect((await http(e.hub.url, 'GET', '/agent/v1/tasks')).status).toBe(401);
    await sleep(4_100);
    expect((await e.agent('GET', '/agent/v1/tasks', undefined, e.other)).status).toBe(200);
    expect((await e.agent('GET', '/agent/v1/tasks', undefined, token('desk'))).status).toBe(401);
  });
});
