/** Renderer entry: pick the transport, connect events, render. */
import React from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './components/App.js';
import { startRenderer } from './host-link.js';
import { useApp } from './store/app.js';
import { pickTransport } from './transport/index.js';
import './styles.css';

if (window.matchMedia?.('(prefers-color-scheme: dark)').matches) useApp.getState().setTheme('dark');
if (navigator.language?.toLowerCase().startsWith('zh')) useApp.getState().setLang('zh');
void startRenderer(pickTransport());

const root = document.getElementById('root');
if (root) createRoot(root).render(<App />);
