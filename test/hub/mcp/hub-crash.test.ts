/* eslint-disable @typescript-eslint/no-explicit-any -- HTTP bodies in tests are untyped JSON */
// The Hub SIGKILLed while an MCP call is in flight, then started again on the same store: the call
// is `unknown` (never re-sent), the Hub starts the stdio server again, and the ledger of our test
// server shows the tool was called exactly once. The MCP server comes from the config file.
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { HubConfig } from '../../../src-hub/index.js';
import { spawnHub, type HubChild } from '../child.js';
import { http, newInvocationId, token } from '../helpers.js';
import { readLedger, testServer, until } from './helpers.js';

const cleanups: Array<() => void> = [];
afterEach(() => {
  for (const c of cleanups.splice(0)) c();
});

describe('the Hub killed mid MCP call', () => {
  it('recovers the call as unknown after a restart, restarts the server, calls nothing twice', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'mcp-crash-'));
    const ledger = join(dataDir, 'ledger.jsonl');
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    cleanups.push(() => {
      // the servers the Hubs started (a SIGKILLed Hub cannot stop its own)
      for (const e of readLedger(ledger).filter((x) => x.event === 'started')) {
        try {
          process.kill(e.pid, 'SIGKILL');
        } catch {
          /* already gone */
        }
      }
    });
    const desk = token('desk');
    const config: HubConfig = {
      systems: [
        {
          kind: 'mcp',
          system_id: 'notes',
          name: 'Notes',
          server: testServer(ledger, { SLOW_MS: '3000' }),
        },
      ],
      clients: [{ client_id: 'desk', name: 'desk', token: desk }],
      authorizations: [
        {
          authorization_ref: 'auth-notes',
          system_id: 'notes',
          account: 'notes-account',
          on_behalf_of: 'operator@demo.local',
          grant_to: ['desk'],
        },
      ],
    };
    let child: HubChild = await spawnHub(dataDir, config);
    cleanups.push(() => void child.proc.kill('SIGKILL'));
    const agent = (method: string, path: string, body?: unknown) =>
      http(child.url, method, path, { token: desk, body });

    const search = await agent('POST', '/agent/v1/tools/search', { query: 'slow write', limit: 20 });
    const decl = (search.body.declarations as any[]).find((d) => d.tool === 'slow_write');
    expect(decl, search.text).toBeDefined();
    const run = await agent('POST', '/agent/v1/runs', {
      agent_session_id: `sess-${randomUUID()}`,
      turn_id: `turn-${randomUUID()}`,
      authorization_ref: 'auth-notes',
    });
    const id = newInvocationId();
    const pending = agent('POST', '/agent/v1/invocations', {
      invocation_id: id,
      run_id: run.body.run_id,
      authorization_ref: 'auth-notes',
      tool: 'slow_write',
      declaration_revision: decl.declaration_revision,
      arguments: { note: 'once' },
      host_call_id: 'c1',
    }).catch(() => null);
    await until(() => readLedger(ledger).some((e) => e.event === 'call' && e.key === id));
    const firstServer = readLedger(ledger).find((e) => e.event === 'started')!.pid;
    await child.kill('SIGKILL');
    await pending;

    child = await spawnHub(dataDir, config);
    const receipt = await agent('GET', `/agent/v1/invocations/${id}`);
    expect(receipt.body.state, receipt.text).toBe('unknown');
    // the restarted Hub starts the server again
    await until(() => readLedger(ledger).some((e) => e.event === 'started' && e.pid !== firstServer));
    // resume reconciles (no look-up tool: unverified) and sends nothing
    const resumed = await agent('POST', `/agent/v1/invocations/${id}/resume`, {});
    expect(resumed.body.receipt.state, resumed.text).toBe('unverified');
    expect(readLedger(ledger).filter((e) => e.event === 'call' && e.tool === 'slow_write')).toHaveLength(1);
    expect(await child.kill('SIGTERM')).toBe(0);
  });
});
