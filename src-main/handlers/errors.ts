/** Coded errors for the IPC contract: `{error, message}`, like every HTTP error in the project. */
import type { IpcError, IpcErrorCode } from '../../src-shared/ipc/contract.js';

export class AppError extends Error {
  constructor(
    readonly code: IpcErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'AppError';
  }
}

/** Anything thrown by a dependency that carries a public code (hub-client errors do). */
interface CodedLike {
  publicCode?: unknown;
  code?: unknown;
  status?: unknown;
  message?: unknown;
}

const HUB_CONFLICT_CODES = new Set(['task_state_conflict', 'decision_conflict', 'invocation_conflict']);
const HUB_NOT_FOUND_CODES = new Set([
  'task_not_found',
  'approval_not_found',
  'invocation_not_found',
  'authorization_not_found',
  'not_found',
]);

/**
 * Maps a thrown value to a coded error. Messages of unknown errors are not forwarded (they may
 * carry internals); coded errors keep their message, which the Hub and runtime write for people.
 */
export function toIpcError(err: unknown): IpcError {
  if (err instanceof AppError) return { error: err.code, message: err.message };
  const e = (err ?? {}) as CodedLike;
  const code = typeof e.publicCode === 'string' ? e.publicCode : typeof e.code === 'string' ? e.code : null;
  const message = typeof e.message === 'string' ? e.message : 'Request failed';
  if (code !== null) {
    // The runtime's refusals of a message's attachments (create-desk-runtime sendMessage).
    if (code === 'attachment_contains_secret') return { error: 'attachment_contains_secret', message };
    if (code === 'invalid_attachment')
      return { error: 'invalid_payload', message: `Invalid attachment: ${message}` };
    if (HUB_CONFLICT_CODES.has(code)) return { error: 'conflict', message: `${code}: ${message}` };
    if (HUB_NOT_FOUND_CODES.has(code)) return { error: 'not_found', message: `${code}: ${message}` };
    if (
      code === 'hub_unavailable' ||
      code === 'network_error' ||
      code === 'ECONNREFUSED' ||
      code === 'timeout'
    ) {
      return { error: 'hub_unavailable', message: 'The Hub cannot be reached right now.' };
    }
    if (typeof e.status === 'number') return { error: 'hub_error', message: `${code}: ${message}` };
  }
  return { error: 'internal_error', message: 'The request failed inside the app; see the app log.' };
}
