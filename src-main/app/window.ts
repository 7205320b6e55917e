/**
 * The app window and its security settings: context isolation, sandbox, no Node integration, web
 * security on; a strict CSP on every response; navigation and new windows refused; the renderer
 * served from our own `app://bailing` origin (never file://).
 */
import { BrowserWindow, net, protocol, session, shell } from 'electron';
import { join, normalize, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { contentSecurityPolicy } from '../browser-host/csp.js';
import { APP_HOST, APP_ORIGIN, APP_SCHEME } from './sender.js';

/** Must run before app `ready`. */
export function registerAppScheme(): void {
  protocol.registerSchemesAsPrivileged([
    { scheme: APP_SCHEME, privileges: { standard: true, secure: true, supportFetchAPI: true } },
  ]);
}

export function serveRenderer(rendererDir: string): void {
  const base = resolve(rendererDir);
  protocol.handle(APP_SCHEME, (request) => {
    const url = new URL(request.url);
    if (url.host !== APP_HOST) return new Response('not found', { status: 404 });
    const rel =
      url.pathname === '/'
        ? 'index.html'
        : normalize(decodeURIComponent(url.pathname)).replace(/^([/\\])+/, '');
    const full = resolve(join(base, rel));
    if (!full.startsWith(base + sep)) return new Response('not found', { status: 404 });
    return net.fetch(pathToFileURL(full).toString());
  });
  session.defaultSession.webRequest.onHeadersReceived((details, callback) => {
    callback({
      responseHeaders: {
        ...details.responseHeaders,
        'Content-Security-Policy': [contentSecurityPolicy("'none'")],
        'X-Content-Type-Options': ['nosniff'],
      },
    });
  });
  session.defaultSession.setPermissionRequestHandler((_wc, _permission, callback) => callback(false));
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
    if (/^https:\/\//.test(url)) void shell.openExternal(url);
    return { action: 'deny' };
  });
  win.once('ready-to-show', () => win.show());
  void win.loadURL(`${APP_ORIGIN}/index.html`);
  return win;
}
