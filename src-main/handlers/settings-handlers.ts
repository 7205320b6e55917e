/** Settings: the Hub, the model (and its key), preferences, and the two connection tests. */
import type { SettingsService } from '../settings/index.js';
import type { HandlerTable } from './types.js';

type SettingsCalls =
  | 'getSettings'
  | 'setHubSettings'
  | 'setModelSettings'
  | 'testModelConnection'
  | 'setPreferences'
  | 'testHubConnection'
  | 'clearModelKey';

export function settingsHandlers(settings: SettingsService): Pick<HandlerTable, SettingsCalls> {
  return {
    getSettings: async () => settings.view(),
    setHubSettings: async (input) => settings.setHub(input),
    setModelSettings: async (input) => settings.setModel(input),
    testModelConnection: async (input) => settings.testModel(input),
    setPreferences: async (input) => settings.setPreferences(input),
    testHubConnection: async (input) => settings.testHub(input),
    clearModelKey: async () => settings.clearModelKey(),
  };
}
