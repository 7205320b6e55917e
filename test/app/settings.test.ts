// Settings through the handler table: keys go only to the keychain (here unavailable, so only with
// explicit session-only consent), are never echoed, and never reach settings.json; bad input and
// a refused secret change nothing.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestDesk, type TestDesk } from './support.js';

let desk: TestDesk;
const ctx = { transport: 'browser' as const };

beforeAll(async () => {
  desk = await startTestDesk();
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

describe('settings', () => {
  it('reports the keychain as unavailable with its reason and refuses a key without session-only consent', async () => {
    const d = desk.root.router;
    const before = await d.call('getSettings', {}, ctx);
    expect(before).toMatchObject({
      ok: true,
      value: { keychain: { state: 'unavailable' }, model: { key_configured: false } },
    });
    const file = join(desk.dir, 'data', 'settings.json');
    const fileBefore = readFileSync(file, 'utf8');

    const refused = await d.call(
      'setModelSettings',
      { base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key: 'sk-never-stored-1234' },
      ctx,
    );
    expect(refused).toMatchObject({ ok: false, error: { code: 'keychain_unavailable' } });
    expect(readFileSync(file, 'utf8')).toBe(fileBefore);
    expect(await d.call('setModelSettings', { base_url: 'not a url', model: 'm' }, ctx)).toMatchObject({
      ok: false,
      error: { code: 'invalid_payload' },
    });
    expect(readFileSync(file, 'utf8')).toBe(fileBefore);

    const ok = await d.call(
      'setModelSettings',
      { base_url: 'http://127.0.0.1:9/v1', model: 'm', api_key: 'sk-session-only-5678', session_only: true },
      ctx,
    );
    expect(ok).toMatchObject({
      ok: true,
      value: {
        model: { base_url: 'http://127.0.0.1:9/v1', model: 'm', key_configured: true },
        keychain: { session_only: true },
      },
    });
    expect(JSON.stringify(ok)).not.toContain('sk-session-only-5678');
    expect(readFileSync(file, 'utf8')).not.toContain('sk-session-only-5678');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      model: { base_url: 'http://127.0.0.1:9/v1', model: 'm' },
    });

    const info = await d.call('getAppInfo', {}, ctx);
    expect(JSON.stringify(info)).not.toContain('sk-session-only-5678');
    expect(await d.call('clearModelKey', {}, ctx)).toMatchObject({
      ok: true,
      value: { model: { key_configured: false } },
    });
  });

  it('saves a remote Hub choice for the next start without echoing its token', async () => {
    const r = await desk.root.router.call(
      'setHubSettings',
      {
        mode: 'remote',
        url: 'http://127.0.0.1:1/',
        client_token: 'bdc_x.secret-token-value-0000',
        session_only: true,
      },
      ctx,
    );
    expect(r).toMatchObject({
      ok: true,
      value: { hub: { mode: 'remote', token_configured: true, restart_required: true } },
    });
    expect(JSON.stringify(r)).not.toContain('secret-token-value');
    const back = await desk.root.router.call('setHubSettings', { mode: 'local' }, ctx);
    expect(back).toMatchObject({ ok: true, value: { hub: { mode: 'local', restart_required: false } } });
  });
});
