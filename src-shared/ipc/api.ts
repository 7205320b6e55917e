/**
 * The typed API the renderer sees, whichever transport carries it: one function per contract
 * call (returning a result envelope, never throwing across the bridge) and one subscription
 * function per event. The preload implements it over Electron IPC; the browser shim over a WebSocket.
 */
import type { CallInput, CallName, CallResult, EventName, EventPayload } from './contract.js';

export type CallFunctions = { [K in CallName]: (input: CallInput<K>) => Promise<CallResult<K>> };

export type EventSubscriptionName<K extends EventName> = `on${Capitalize<K>}`;
export type EventFunctions = {
  [K in EventName as EventSubscriptionName<K>]: (listener: (payload: EventPayload<K>) => void) => () => void;
};

export type BailingApi = CallFunctions & EventFunctions;

export const subscriptionNameOf = <K extends EventName>(name: K): EventSubscriptionName<K> =>
  `on${name.charAt(0).toUpperCase()}${name.slice(1)}` as EventSubscriptionName<K>;
