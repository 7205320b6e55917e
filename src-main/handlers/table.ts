/**
 * The one handler table. Both transports (Electron IPC and the browser host's WebSocket) reach it
 * only through the router, which has already checked the sender and validated the input. Each
 * group of calls has its own file; this one joins them.
 */
import type { DeskRuntime } from '../runtime/desk-runtime.js';
import type { SettingsService } from '../settings/index.js';
import { approvalHandlers } from './approval-handlers.js';
import { demoDataHandlers, type DemoDataPort } from './demo-data.js';
import type { HubGateway } from './hub-gateway.js';
import { invocationHandlers } from './invocation-handlers.js';
import type { McpServerHandlers } from './mcp-servers.js';
import { sessionHandlers } from './session-handlers.js';
import { settingsHandlers } from './settings-handlers.js';
import { taskHandlers } from './task-handlers.js';
import type { HandlerTable } from './types.js';
import { storageView } from './views.js';

export interface HandlerDeps {
  runtime: DeskRuntime;
  hub: HubGateway;
  settings: SettingsService;
  version: string;
  /** The conversation opened by default (the embedded demo conversation), if any. */
  defaultSessionId: () => string | null;
  /** Whether a model (base URL + model name) is configured; chat needs one, manual tool runs do not. */
  modelConfigured: () => boolean;
  /** The embedded demo systems' data (null without them: a remote Hub). */
  demoData?: DemoDataPort | null;
  /** Settings' MCP servers (./mcp-servers.ts). */
  mcp: McpServerHandlers;
}

export function createHandlerTable(deps: HandlerDeps): HandlerTable {
  const { runtime, hub, settings } = deps;
  return {
    async getAppInfo(_input, ctx) {
      return {
        version: deps.version,
        transport: ctx.transport,
        hub: hub.connection(),
        settings: await settings.view(),
        default_session_id: deps.defaultSessionId(),
      };
    },
    ...sessionHandlers({ runtime, hub, modelConfigured: deps.modelConfigured }),
    ...invocationHandlers({ runtime, hub }),
    ...taskHandlers(hub),
    ...approvalHandlers(hub),
    ...settingsHandlers(settings),
    ...demoDataHandlers(deps.demoData ?? null),
    ...deps.mcp,
  };
}

export { storageView };
