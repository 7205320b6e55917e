// Benchmark page: the real IdlePanel component and store, fed N synthetic unresolved invocations
// (N from ?n=). Reports timings on window.__bench for bench/ui.ts.
import React from 'react';
import { createRoot } from 'react-dom/client';
import type { UnresolvedItem } from '../../src-shared/ipc/views.js';
import { IdlePanel } from '../../src-renderer/src/components/IdlePanel.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useUnresolved } from '../../src-renderer/src/store/unresolved.js';
import '../../src-renderer/src/styles.css';

declare global {
  interface Window {
    __bench?: { n: number; renderMs: number; rows: number };
  }
}

const n = Number(new URLSearchParams(location.search).get('n') ?? '10000');
const states = ['awaiting_approval', 'approved', 'unknown', 'unverified', 'dispatching'] as const;
const items: UnresolvedItem[] = Array.from({ length: n }, (_, i) => ({
  invocation_id: `inv_${String(i).padStart(8, '0')}`,
  session_id: `ses_${i % 50}`,
  session_title: `Conversation ${i % 50}`,
  tool: i % 2 ? 'update_product' : 'get_stock',
  authorization_ref: i % 3 ? 'auth-shop-a' : 'auth-inventory',
  hub_state: states[i % states.length] ?? 'unknown',
  journal_entry_state: states[i % states.length] ?? 'unknown',
  journal_state: i % 97 === 0 ? 'storage_error' : 'ready',
  archive_state: 'ready',
  unsaved: i % 97 === 0,
  unsaved_reason: i % 97 === 0 ? 'invocation_store_unavailable' : null,
  can_inspect: true,
  can_resume: i % 5 === 1 || i % 5 === 2,
  can_attest: false,
  updated_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
}));

useApp.setState({
  hub: { state: 'connected', mode: 'local', url: null, reason: null, since: '', can_approve: true },
});
const t0 = performance.now();
useUnresolved.getState().set(items);
const root = document.getElementById('root');
if (root) createRoot(root).render(<IdlePanel />);
const check = () => {
  const rows = document.querySelectorAll('[data-testid="idle-row"]').length;
  if (rows > 0) window.__bench = { n, renderMs: performance.now() - t0, rows };
  else requestAnimationFrame(check);
};
requestAnimationFrame(check);
