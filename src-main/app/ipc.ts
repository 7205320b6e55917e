/**
 * Registers exactly one ipcMain handler per contract call, each on its fixed channel. Every call
 * is checked for its sender frame before the router (which validates the payload and calls the
 * one handler table). Events from main go to our window only.
 */
import type { IpcMain, IpcMainInvokeEvent, WebContents } from 'electron';
import { CALL_NAMES, EVENT_NAMES, type CallName, type CallResult } from '../../src-shared/ipc/contract.js';
import { channelOf, eventChannelOf } from '../../src-shared/ipc/channels.js';
import type { CallRouter } from '../handlers/call-router.js';
import type { EventBus } from '../handlers/event-bus.js';
import { isTrustedSender } from './sender.js';

export interface IpcRegistration {
  channels: string[];
  dispose(): void;
}

export interface RegisterIpcOptions {
  ipcMain: Pick<IpcMain, 'handle' | 'removeHandler'>;
  router: CallRouter;
  bus: EventBus;
  /** Our window's web contents (null while there is no window). */
  webContents: () => Pick<WebContents, 'id' | 'send' | 'isDestroyed'> | null;
  origin?: string;
  log?: (msg: string) => void;
}

export function registerIpc(opts: RegisterIpcOptions): IpcRegistration {
  const channels: string[] = [];
  for (const name of CALL_NAMES) {
    const channel = channelOf(name);
    channels.push(channel);
    opts.ipcMain.handle(
      channel,
      async (event: IpcMainInvokeEvent, payload: unknown): Promise<CallResult<CallName>> => {
        const wc = opts.webContents();
        if (!isTrustedSender(event, wc ? wc.id : null, opts.origin)) {
          opts.log?.(`refused ${name} from an unexpected frame`);
          return {
            ok: false,
            error: { code: 'forbidden_sender', message: 'This call is only accepted from the app window.' },
          };
        }
        return opts.router.call(name, payload, { transport: 'electron' });
      },
    );
  }
  const eventNames = new Set<string>(EVENT_NAMES);
  const off = opts.bus.subscribe((name, payload) => {
    if (!eventNames.has(name)) return;
    const wc = opts.webContents();
    if (wc && !wc.isDestroyed()) wc.send(eventChannelOf(name), payload);
  });
  return {
    channels,
    dispose() {
      off();
      for (const c of channels) opts.ipcMain.removeHandler(c);
    },
  };
}
