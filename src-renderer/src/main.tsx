/** Renderer entry: pick the transport, connect events, render. */
import React from 'react';
import { createRoot } from 'react-dom/client';
import { errorText } from './api-client.js';
import { bootstrap, loadAll } from './bootstrap.js';
import { App } from './components/App.js';
import { useApp } from './store/app.js';
import { pickTransport } from './transport/index.js';
import './styles.css';

const transport = pickTransport();
transport.onStatus((s) => {
  const before = useApp.getState().hostLink;
  useApp.getState().setHostLink(s);
  // The browser host came back (e.g. after a restart): read everything once again.
  if (s === 'open' && before === 'closed') loadAll().catch((e: unknown) => useApp.getState().setError(errorText(e)));
});
if (window.matchMedia?.('(prefers-color-scheme: dark)').matches) useApp.getState().setTheme('dark');
if (navigator.language?.toLowerCase().startsWith('zh')) useApp.getState().setLang('zh');
bootstrap(transport.api).catch((e: unknown) => useApp.getState().setError(errorText(e)));

const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
