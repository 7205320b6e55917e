// Coded errors end to end (docs/design.md#errors): whatever a handler throws, the call router sends
// one AppError shape whose code is in APP_ERROR_CODES; a Hub refusal keeps the Hub's {error,
// message} unchanged as the cause; anything else is internal_error with no internals. The literal
// codes thrown or sent anywhere in the main side are checked against the enum in
// test/renderer/feedback-i18n.test.tsx; here, the mapping of every kind of error is.
import { describe, expect, it } from 'vitest';
import { createCallRouter } from '../../src-main/handlers/call-router.js';
import type { HandlerTable } from '../../src-main/handlers/types.js';
import { HubClientError } from '../../src-main/hub-client/index.js';
import { KeychainUnavailableError } from '../../src-main/keychain/index.js';
import { AppError, AppErrorSchema, APP_ERROR_CODES, isAppErrorCode } from '../../src-shared/errors.js';

/** A router whose one call (listTasks) throws `err`. */
async function sent(err: unknown) {
  const table = { listTasks: () => Promise.reject(err) } as unknown as HandlerTable;
  const logged: unknown[] = [];
  const router = createCallRouter({ table, onError: (_n, _e, cause) => logged.push(cause) });
  const r = await router.call('listTasks', {}, { transport: 'browser' });
  if (r.ok) throw new Error('expected a refusal');
  expect(AppErrorSchema.safeParse(r.error).success, JSON.stringify(r.error)).toBe(true);
  expect(logged).toEqual([err]);
  return r.error;
}

describe('the error a call is refused with', () => {
  it('an AppError is sent as it is, with its code and any cause', async () => {
    expect(await sent(new AppError('turn_in_progress', 'busy'))).toEqual({
      code: 'turn_in_progress',
      message: 'busy',
    });
    const cause = { error: 'task_state_conflict', message: 'task is cancelled' };
    expect(await sent(new AppError('conflict', 'no', cause))).toEqual({
      code: 'conflict',
      message: 'no',
      cause,
    });
  });

  it('a Hub refusal keeps the Hub’s {error, message} unchanged as the cause', async () => {
    const conflict = new HubClientError(
      'http',
      409,
      'task_state_conflict',
      'task tsk_1 is cancelled',
      'POST',
      '/x',
    );
    expect(await sent(conflict)).toMatchObject({
      code: 'conflict',
      cause: { error: 'task_state_conflict', message: 'task tsk_1 is cancelled' },
    });
    const missing = new HubClientError('http', 404, 'approval_not_found', 'no approval apr_1', 'GET', '/x');
    expect(await sent(missing)).toMatchObject({ code: 'not_found', cause: { error: 'approval_not_found' } });
    const other = new HubClientError('http', 400, 'invalid_request', 'bad body', 'POST', '/x');
    expect(await sent(other)).toMatchObject({
      code: 'hub_error',
      cause: { error: 'invalid_request', message: 'bad body' },
    });
  });

  it('a Hub that cannot be reached is hub_unavailable; a Hub answer without a code is hub_error, with no cause', async () => {
    for (const kind of ['network', 'timeout'] as const)
      expect(await sent(new HubClientError(kind, null, null, 'x', 'GET', '/x'))).toEqual({
        code: 'hub_unavailable',
        message: 'The Hub cannot be reached right now.',
      });
    const bare = await sent(new HubClientError('http', 502, null, 'bad gateway', 'GET', '/x'));
    expect(bare.code).toBe('hub_error');
    expect(bare.cause).toBeUndefined();
  });

  it('the keychain’s refusal is keychain_unavailable', async () => {
    expect((await sent(new KeychainUnavailableError('no Secret Service'))).code).toBe('keychain_unavailable');
  });

  it('anything else — an error with a code of its own, a string, null — is internal_error, nothing of it sent', async () => {
    const strange = Object.assign(new Error('ENOSPC: /home/u/secret/path'), { code: 'ENOSPC', status: 500 });
    for (const err of [strange, 'boom', null, { code: 'made_up', message: 'x' }]) {
      const e = await sent(err);
      expect(e).toEqual({
        code: 'internal_error',
        message: 'The request failed inside the app; see the app log.',
      });
    }
  });

  it('a code outside the enum cannot be thrown (compile time) nor parsed (run time)', () => {
    // @ts-expect-error not an AppErrorCode
    const bad = new AppError('made_up', 'x');
    expect(AppErrorSchema.safeParse(bad.toData()).success).toBe(false);
    expect(isAppErrorCode('made_up')).toBe(false);
    expect(APP_ERROR_CODES.every(isAppErrorCode)).toBe(true);
  });
});
