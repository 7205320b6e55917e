/** Settings view (never a secret: only whether a token or key is configured). */
import { create } from 'zustand';
import type { CallInput } from '../../../src-shared/ipc/contract.js';
import type { SettingsView } from '../../../src-shared/ipc/views.js';
import { call } from '../api-client.js';

export interface SettingsState {
  settings: SettingsView | null;
  load(): Promise<void>;
  saveHub(input: CallInput<'setHubSettings'>): Promise<void>;
  saveModel(input: CallInput<'setModelSettings'>): Promise<void>;
  clearKey(): Promise<void>;
}

export const useSettings = create<SettingsState>((set) => ({
  settings: null,
  async load() {
    set({ settings: await call('getSettings', {}) });
  },
  async saveHub(input) {
    set({ settings: await call('setHubSettings', input) });
  },
  async saveModel(input) {
    set({ settings: await call('setModelSettings', input) });
  },
  async clearKey() {
    set({ settings: await call('clearModelKey', {}) });
  },
}));
