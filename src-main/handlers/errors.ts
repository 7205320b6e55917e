/**
 * Anything thrown while handling a call, as the one coded error both transports send
 * (src-shared/errors.ts). Errors of known kinds are mapped by their class, never by their text: an
 * AppError as it is, a hub-client error by what the Hub answered (its `{error, message}` kept as
 * the cause), the keychain's refusal as `keychain_unavailable`. Anything else is `internal_error`,
 * whose details go to the app log only (they may carry internals).
 */
import { AppError, type AppErrorCode, type AppErrorData } from '../../src-shared/errors.js';
import { HubClientError } from '../hub-client/index.js';
import { KeychainUnavailableError } from '../keychain/index.js';

export { AppError };

/** Throws `hub_unavailable` unless the Hub's live stream is connected (the action needs the Hub). */
export function requireConnectedHub(hub: { connection(): { state: string } }): void {
  if (hub.connection().state !== 'connected')
    throw new AppError('hub_unavailable', 'The Hub cannot be reached right now; this action needs it.');
}

/** Hub codes that say the request conflicts with the current state, or names something that does not exist. */
const HUB_CONFLICT_CODES = new Set(['task_state_conflict', 'decision_conflict', 'invocation_conflict']);
const HUB_NOT_FOUND_CODES = new Set([
  'task_not_found',
  'approval_not_found',
  'invocation_not_found',
  'authorization_not_found',
  'not_found',
]);

const MAX_CAUSE_MESSAGE = 4000;

function fromHubClientError(err: HubClientError): AppErrorData {
  if (err.kind === 'network' || err.kind === 'timeout')
    return { code: 'hub_unavailable', message: 'The Hub cannot be reached right now.' };
  if (err.kind === 'http' && err.code !== null) {
    const code: AppErrorCode = HUB_CONFLICT_CODES.has(err.code)
      ? 'conflict'
      : HUB_NOT_FOUND_CODES.has(err.code)
        ? 'not_found'
        : 'hub_error';
    return {
      code,
      message: `The Hub refused the request (${err.code}).`,
      cause: { error: err.code, message: err.message.slice(0, MAX_CAUSE_MESSAGE) },
    };
  }
  return { code: 'hub_error', message: `The request to the Hub failed (${err.kind}).` };
}

export function toAppError(err: unknown): AppErrorData {
  if (err instanceof AppError) return err.toData();
  if (err instanceof HubClientError) return fromHubClientError(err);
  if (err instanceof KeychainUnavailableError) return { code: 'keychain_unavailable', message: err.message };
  return { code: 'internal_error', message: 'The request failed inside the app; see the app log.' };
}
