/** Debian's Chromium with the flags the build machines need (docs/operations.md#chromium-for-the-tests). */
export const CHROMIUM_PATH = process.env.BAILING_CHROMIUM ?? '/usr/bin/chromium';

export function chromiumLaunchOptions(): { executablePath: string; args: string[] } {
  return {
    executablePath: CHROMIUM_PATH,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  };
}
