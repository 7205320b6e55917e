/**
 * The one entry point both transports use: checks the channel against the contract, bounds the
 * payload, validates it, calls the handler table, then validates (and strips) the response so no
 * field outside the contract (a token, a key) can reach the renderer. Bad input changes nothing:
 * it is refused before any handler runs.
 */
import {
  CALLS,
  MAX_PAYLOAD_BYTES,
  MAX_RESPONSE_BYTES,
  isCallName,
  type CallName,
  type CallResult,
} from '../../src-shared/ipc/contract.js';
import type { AppErrorData } from '../../src-shared/errors.js';
import { AppError, toAppError } from './errors.js';
import type { CallContext, HandlerTable } from './types.js';

export interface CallRouter {
  call(name: unknown, payload: unknown, ctx: CallContext): Promise<CallResult<CallName>>;
}

export interface CallRouterDeps {
  table: HandlerTable;
  /** Called with (name, error) for refused or failed calls; never with payloads. */
  onError?: (name: string, error: AppErrorData, cause: unknown) => void;
}

/** Serialized size of a payload, or null when it is not plain JSON (cycles, BigInt, functions...). */
export function jsonSize(value: unknown): number | null {
  try {
    const text = JSON.stringify(value);
    return text === undefined ? null : Buffer.byteLength(text, 'utf8');
  } catch {
    return null;
  }
}

export function createCallRouter(deps: CallRouterDeps): CallRouter {
  const fail = (name: string, err: unknown): CallResult<CallName> => {
    const error = toAppError(err);
    deps.onError?.(name, error, err);
    return { ok: false, error };
  };
  return {
    async call(name, payload, ctx) {
      const label = typeof name === 'string' ? name.slice(0, 100) : '(invalid)';
      if (!isCallName(name))
        return fail(label, new AppError('unknown_channel', 'No such call in the contract.'));
      const size = jsonSize(payload ?? {});
      if (size === null) return fail(name, new AppError('invalid_payload', 'The payload is not plain JSON.'));
      if (size > MAX_PAYLOAD_BYTES) {
        return fail(
          name,
          new AppError('payload_too_large', `The payload is larger than ${MAX_PAYLOAD_BYTES} bytes.`),
        );
      }
      const spec = CALLS[name];
      const parsed = spec.input.safeParse(payload ?? {});
      if (!parsed.success) {
        const first = parsed.error.issues[0];
        const where = first && first.path.length > 0 ? ` at ${first.path.join('.')}` : '';
        return fail(
          name,
          new AppError('invalid_payload', `Invalid input${where}: ${first?.message ?? 'invalid'}`),
        );
      }
      let value: unknown;
      try {
        const handler = deps.table[name] as (input: unknown, ctx: CallContext) => Promise<unknown>;
        value = await handler(parsed.data, ctx);
      } catch (err) {
        return fail(name, err);
      }
      const out = spec.output.safeParse(value);
      if (!out.success) {
        return fail(
          name,
          new Error(`response of ${name} does not match the contract: ${out.error.issues[0]?.message}`),
        );
      }
      const outSize = jsonSize(out.data);
      if (outSize === null || outSize > MAX_RESPONSE_BYTES) {
        return fail(name, new AppError('payload_too_large', 'The response is too large to send.'));
      }
      return { ok: true, value: out.data } as CallResult<CallName>;
    },
  };
}
