// Types of ./launch-link.mjs (how `npm start` shows the browser-mode link).
export function createLinkRelay(deps: {
  log: (text: string) => void;
  open: boolean;
  browser: string | null;
  spawnBrowser: (browser: string, args: string[]) => void;
}): (line: string) => void;
export function privateRedirect(url: string): string;
