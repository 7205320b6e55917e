export {
  createSettingsFileStore,
  defaultSettings,
  SettingsFileError,
  SettingsFileSchema,
  type SettingsFile,
  type SettingsFileStore,
} from './file.js';
export type { SettingsService } from './port.js';
export { createSettingsService, type DeskSettings, type SettingsServiceDeps } from './service.js';
