/** The handler table: one async handler per contract call, shared by both transports. */
import type { CallName, CallOutput } from '../../src-shared/ipc/contract.js';
import type { CALLS } from '../../src-shared/ipc/contract.js';
import type { z } from 'zod';

export interface CallContext {
  transport: 'electron' | 'browser';
}

export type HandlerTable = {
  [K in CallName]: (input: z.output<(typeof CALLS)[K]['input']>, ctx: CallContext) => Promise<CallOutput<K>>;
};
