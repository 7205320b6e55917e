// Types of ./electron-fuses.mjs (the packaging step that flips Electron's fuses).
export const FUSES: Record<string | number, unknown> & { version: string; strictlyRequireAllFuses: boolean };
export function applyFuses(
  binary: string,
): Promise<Record<string, 'enabled' | 'disabled' | 'removed' | 'unknown'>>;
