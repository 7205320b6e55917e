/** What the handler table needs from settings (the port the handlers use; implemented by ./service.ts). */
import type { CallInput } from '../../src-shared/ipc/contract.js';
import type { ConnectionTestView, HubTestView, SettingsView } from '../../src-shared/ipc/views.js';

export interface SettingsService {
  view(): Promise<SettingsView>;
  setHub(input: CallInput<'setHubSettings'>): Promise<SettingsView>;
  setModel(input: CallInput<'setModelSettings'>): Promise<SettingsView>;
  clearModelKey(): Promise<SettingsView>;
  /** Settings' Test connection with the form's values (nothing saved). */
  testModel(input: CallInput<'testModelConnection'>): Promise<ConnectionTestView>;
  /** Language and theme, kept in the settings file. */
  setPreferences(input: CallInput<'setPreferences'>): Promise<SettingsView>;
  /** Settings' Test connection for a remote Hub (nothing saved). */
  testHub(input: CallInput<'testHubConnection'>): Promise<HubTestView>;
}
