/**
 * Settings' MCP servers (local Hub only): the registered servers and, per server, its tools with
 * their overlays. Every change answers with the Hub's new view, kept here; adding a server also
 * re-reads the authorizations (its tools' kind badges and names come from there).
 */
import { create } from 'zustand';
import type {
  AddMcpServerForm,
  McpOverlayInput,
  McpServerItem,
  McpToolItem,
} from '../../../src-shared/ipc/mcp.js';
import { call } from '../api-client.js';
import { reloadAuthorizations } from './authorization-names.js';

export interface McpServersState {
  /** null until read; false where the desk may not manage MCP servers (a remote Hub). */
  canManage: boolean | null;
  servers: McpServerItem[];
  tools: Record<string, McpToolItem[]>;
  load(): Promise<void>;
  add(form: AddMcpServerForm): Promise<McpServerItem>;
  refresh(systemId: string): Promise<void>;
  /** Removes the server (the Hub retires it); it leaves the list once the Hub has answered. */
  remove(systemId: string): Promise<void>;
  loadTools(systemId: string): Promise<void>;
  setOverlay(systemId: string, tool: string, overlay: McpOverlayInput): Promise<void>;
  clearOverlay(systemId: string, tool: string): Promise<void>;
}

const upsert = (list: McpServerItem[], item: McpServerItem) => [
  ...list.filter((s) => s.system_id !== item.system_id),
  item,
];

export const useMcpServers = create<McpServersState>((set, get) => {
  const putTool = (systemId: string, item: McpToolItem) =>
    set({
      tools: {
        ...get().tools,
        [systemId]: (get().tools[systemId] ?? []).map((t) => (t.tool === item.tool ? item : t)),
      },
    });
  return {
    canManage: null,
    servers: [],
    tools: {},
    async load() {
      const r = await call('listMcpServers', {});
      set({ canManage: r.can_manage, servers: r.servers });
    },
    async add(form) {
      const item = await call('addMcpServer', form);
      set({ servers: upsert(get().servers, item) });
      await reloadAuthorizations();
      return item;
    },
    async refresh(systemId) {
      const item = await call('refreshMcpServer', { system_id: systemId });
      set({ servers: upsert(get().servers, item) });
      if (get().tools[systemId]) await get().loadTools(systemId);
    },
    async remove(systemId) {
      await call('removeMcpServer', { system_id: systemId });
      const { [systemId]: _gone, ...tools } = get().tools;
      set({ servers: get().servers.filter((s) => s.system_id !== systemId), tools });
      await reloadAuthorizations();
    },
    async loadTools(systemId) {
      const r = await call('listMcpTools', { system_id: systemId });
      set({ tools: { ...get().tools, [systemId]: r.tools } });
    },
    async setOverlay(systemId, tool, overlay) {
      putTool(systemId, await call('setMcpToolOverlay', { system_id: systemId, tool, overlay }));
    },
    async clearOverlay(systemId, tool) {
      putTool(systemId, await call('clearMcpToolOverlay', { system_id: systemId, tool }));
    },
  };
});
