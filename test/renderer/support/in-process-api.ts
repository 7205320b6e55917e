// A BailingApi over the real router and event bus, in process: the renderer under test talks
// to the real handler table, Hub, demo systems and runtime (payloads are cloned, as IPC would).
import type { BailingApi } from '../../../src-shared/ipc/api.js';
import { subscriptionNameOf } from '../../../src-shared/ipc/api.js';
import { CALL_NAMES, EVENT_NAMES } from '../../../src-shared/ipc/contract.js';
import type { CallRouter } from '../../../src-main/handlers/call-router.js';
import type { EventBus } from '../../../src-main/handlers/event-bus.js';

const clone = <T>(v: T): T => (v === undefined ? v : (JSON.parse(JSON.stringify(v)) as T));

export function inProcessApi(router: CallRouter, bus: EventBus): BailingApi {
  const api: Record<string, unknown> = {};
  for (const name of CALL_NAMES)
    api[name] = async (input: unknown) =>
      clone(await router.call(name, clone(input), { transport: 'browser' }));
  for (const name of EVENT_NAMES) {
    api[subscriptionNameOf(name)] = (listener: (p: unknown) => void) =>
      bus.subscribe((n, payload) => {
        if (n === name) listener(clone(payload));
      });
  }
  return api as unknown as BailingApi;
}
