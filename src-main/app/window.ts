/**
 * The app window and its security settings: context isolation, sandbox, no Node integration, web
 * security on; a strict CSP on every response of the `app://` protocol handler (set on the Response
 * itself: `webRequest` hooks need not fire for a custom protocol); every permission request and
 * permission check denied; navigation refused; new windows refused, and only allow-listed https
 * links handed to the system browser (./external-links.ts); the renderer served from our own
 * `app://bailing` origin (never file://).
 */
import { BrowserWindow, net, protocol, session, shell } from 'electron';
import { join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { contentSecurityPolicy } from '../browser-host/csp.js';
import { isExternalLinkAllowed } from './external-links.js';
import { APP_HOST, APP_ORIGIN, APP_SCHEME } from './sender.js';

/** Must run before app `ready`. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

/** The headers every response of the app's protocol carries (the renderer talks to main over IPC only). */
export const APP_RESPONSE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': contentSecurityPolicy("'none'"),
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
};

const withAppHeaders = (res: Response): Response => {
  const headers = new Headers(res.headers);
  for (const [k, v] of Object.entries(APP_RESPONSE_HEADERS)) headers.set(k, v);
  return new Response(res.body, { status: res.status, statusText: res.statusText, headers });
};

/** The `app://` protocol handler: files of the renderer build only, every answer with the app's headers. */
export function appProtocolHandler(rendererDir: string): (request: Request) => Promise<Response> {
  const base = resolve(rendererDir);
  return async (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return withAppHeaders(new Response('not found', { status: 404 }));
    let rel: string;
    try {
      rel =
        url.pathname === '/'
          ? 'index.html'
          : normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    } catch {
      return withAppHeaders(new Response('not found', { status: 404 }));
    }
    const full = resolve(join(base, rel));
    if (!full.startsWith(base + sep)) return withAppHeaders(new Response('not found', { status: 404 }));
    return withAppHeaders(await net.fetch(pathToFileURL(full).toString()));
  };
}

export function serveRenderer(rendererDir: string): void {
  protocol.handle(APP_SCHEME, appProtocolHandler(rendererDir));
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
  session.defaultSession.setPermissionCheckHandler(() => false);
}

export function createMainWindow(preloadPath: string): BrowserWindow {
  const win = new BrowserWindow({
    width: 1280,
    height: 860,
    show: false,
    title: 'Bailing Desk',
    webPreferences: {
      preload: preloadPath,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: false,
    },
  });
  win.webContents.on('will-navigate', (event, url) => {
    if (!url.startsWith(`${APP_ORIGIN}/`)) event.preventDefault();
  });
  win.webContents.on('will-attach-webview', (event) => event.preventDefault());
  win.webContents.setWindowOpenHandler(({ url }) => {
    if (isExternalLinkAllowed(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}
