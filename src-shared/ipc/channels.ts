/**
 * Channel names for Electron IPC. Zod-free so the preload stays small; the names are fixed
 * prefixes plus a contract name, so nothing outside the contract can be reached.
 */
export const CALL_CHANNEL_PREFIX = 'bailing:';
export const EVENT_CHANNEL_PREFIX = 'bailing-event:';
export const channelOf = (name: string): string => `${CALL_CHANNEL_PREFIX}${name}`;
export const eventChannelOf = (name: string): string => `${EVENT_CHANNEL_PREFIX}${name}`;
