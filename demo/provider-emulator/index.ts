export {
  startProviderEmulator,
  DEFAULT_EMULATED_MODEL,
  type ProviderEmulator,
  type ProviderEmulatorOptions,
  type EmulatorLoggedRequest,
} from './server.js';
export { PROVIDER_MODES, PROVIDER_MODE_NAMES, type ProviderMode, type ArmedFault } from './modes.js';
export { MAX_TOOL_CALL_ID } from './rules/tool-call-id-length.js';
export { MID_STREAM_ERROR } from './wire/error-mid-stream.js';
export type { IssuedCall } from './types.js';
