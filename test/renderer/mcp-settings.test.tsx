// Settings' MCP servers against the real main-process handlers and the embedded Hub, which starts
// the reference memory server from npm: the form's problems shown at their controls before
// anything is sent; adding the server (the secret never on screen afterwards); its tool table with
// each value's origin; an overlay edited (a bad timeout refused at its field) and cleared; a
// registration the Hub refuses worded from its code next to the button, in English and Chinese;
// the system kind beside the new system in the task form and the timeline; Remove with its
// confirmation, refused while a call awaits approval (worded from the code), then done; and a
// server removed behind the screen's back, whose changes are refused (system_retired, worded).
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { App } from '../../src-renderer/src/components/App.js';
import { TaskCreateForm } from '../../src-renderer/src/components/TaskPanel.js';
import { TaskTimeline } from '../../src-renderer/src/components/TaskTimeline.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import type { TestDesk } from '../app/support.js';
import { startWiredDesk, type WiredDesk } from './support/wired-desk.js';

const require = createRequire(import.meta.url);
const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
const SECRET = 'sk-renderer-secret-9c2e77aa';
let desk: TestDesk;
let wired: WiredDesk | undefined;
const dir = mkdtempSync(join(tmpdir(), 'mcp-settings-'));

beforeAll(async () => {
  wired = await startWiredDesk();
  desk = wired.desk;
}, 120_000);
afterAll(async () => {
  cleanup();
  await wired?.close();
  rmSync(dir, { recursive: true, force: true });
}, 120_000);

/** A main-process handler's answer, through the real router (as the renderer's calls go). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are read as untyped JSON
async function ok(name: Parameters<TestDesk['root']['router']['call']>[0], input: unknown): Promise<any> {
  const r = await desk.root.router.call(name, input, { transport: 'browser' });
  if (!r.ok) throw new Error(`${name}: ${JSON.stringify(r.error)}`);
  return r.value;
}

async function openSettings() {
  const user = userEvent.setup();
  render(<App />);
  const nav = await screen.findByRole('navigation', { name: 'Main navigation' }, { timeout: 10_000 });
  await user.click(within(nav).getAllByRole('button').at(-1) as HTMLElement);
  const section = await screen.findByTestId('mcp-servers');
  return { user, s: within(section) };
}

describe('Settings: MCP servers', () => {
  it('checks the form first, adds the memory server, shows and edits its tools’ overlays', async () => {
    const { user, s } = await openSettings();
    await waitFor(() => expect(s.getByText('No MCP server yet.')).toBeTruthy());
    const form = within(s.getByRole('form', { name: 'Add an MCP server' }));

    // problems at their controls; nothing is sent
    await user.type(form.getByLabelText('Id (a–z, 0–9, - and _)'), 'Bad Id');
    await user.click(form.getByRole('button', { name: 'Add server' }));
    expect(form.getByTestId('mcp-problem-system_id').textContent).toContain('lower-case letters');
    expect(form.getByTestId('mcp-problem-name').textContent).toBe('Give the server a name.');
    expect(form.getByTestId('mcp-problem-command').textContent).toBe(
      'Enter the command that starts the server.',
    );
    expect(form.getByLabelText('Id (a–z, 0–9, - and _)').getAttribute('aria-describedby')).toBe(
      'mcp-problem-system_id',
    );
    expect((await desk.root.router.call('listMcpServers', {}, { transport: 'browser' })).ok).toBe(true);

    await user.clear(form.getByLabelText('Id (a–z, 0–9, - and _)'));
    await user.type(form.getByLabelText('Id (a–z, 0–9, - and _)'), 'memory');
    await user.type(form.getByLabelText('Name'), 'Memory graph');
    await user.type(form.getByLabelText('Command'), process.execPath);
    await user.type(form.getByLabelText('Arguments (one per line)'), MEMORY);
    await user.click(form.getByRole('button', { name: 'Add a variable' }));
    await user.type(form.getByLabelText('Name of variable 1'), 'MEMORY_FILE_PATH');
    await user.type(form.getByLabelText('Value of variable 1'), join(dir, 'memory.jsonl'));
    await user.click(form.getByRole('button', { name: 'Add a variable' }));
    await user.type(form.getByLabelText('Name of variable 2'), 'MEMORY_TOKEN');
    await user.click(within(form.getAllByTestId('mcp-env-row')[1]!).getByLabelText('Secret'));
    expect(form.getByLabelText('Value of variable 2').getAttribute('type')).toBe('password');
    await user.type(form.getByLabelText('Value of variable 2'), SECRET);
    await user.click(form.getByRole('button', { name: 'Add server' }));
    await waitFor(
      () =>
        expect(form.getByTestId('mcp-add-answer').textContent).toMatch(/^Added Memory graph: \d+ tools\.$/),
      {
        timeout: 20_000,
      },
    );
    // the secret is with the Hub only: the form starts empty again and nothing on screen shows it
    expect(form.queryAllByTestId('mcp-env-row')).toHaveLength(0);
    expect(form.getByLabelText('Id (a–z, 0–9, - and _)')).toHaveProperty('value', '');
    const row = within(await s.findByTestId('mcp-server'));
    expect(row.getByTestId('mcp-server-connection').textContent).toContain('Connected');
    expect(row.getByText(/Secret variables \(values never shown\): MEMORY_TOKEN/)).toBeTruthy();
    expect(document.body.innerHTML).not.toContain(SECRET);

    // the tool table: each value with where it comes from
    await user.click(row.getByRole('button', { name: 'Show tools' }));
    const table = within(await row.findByTestId('mcp-tools'));
    const toolRow = (tool: string) =>
      within(table.getAllByTestId('mcp-tool-row').find((r) => r.dataset.tool === tool)!);
    const cell = (tool: string, field: string) =>
      toolRow(tool)
        .getAllByRole('cell')
        .find((c) => c.dataset.field === field)!;
    await waitFor(() => expect(cell('read_graph', 'effect').textContent).toBe('read (annotations)'));
    expect(cell('read_graph', 'timeout_ms').dataset.origin).toBe('default');
    expect(cell('create_entities', 'effect').textContent).toBe('write (annotations)');

    // edit create_entities' overlay: a bad timeout is refused at its field, then saved
    await user.click(
      toolRow('create_entities').getByRole('button', { name: 'Edit overlay of create_entities' }),
    );
    const overlay = within(await table.findByRole('form', { name: 'Overlay of create_entities' }));
    await user.selectOptions(overlay.getByLabelText('Risk'), 'low');
    await user.selectOptions(overlay.getByLabelText('Approval required'), 'no');
    await user.type(overlay.getByLabelText('Timeout in milliseconds (empty: not set)'), '5');
    await user.click(overlay.getByRole('button', { name: 'Save overlay' }));
    expect(overlay.getByTestId('mcp-overlay-problem-timeout_ms').textContent).toBe(
      'A timeout is a whole number of milliseconds from 100 to 600000.',
    );
    await user.type(overlay.getByLabelText('Timeout in milliseconds (empty: not set)'), '000');
    await user.click(overlay.getByRole('button', { name: 'Save overlay' }));
    await waitFor(() =>
      expect(toolRow('create_entities').getByTestId('mcp-tool-answer').textContent).toBe(
        'Overlay of create_entities saved; the tool has a new declaration revision.',
      ),
    );
    expect(cell('create_entities', 'risk_level').textContent).toBe('low (overlay)');
    expect(cell('create_entities', 'approval').textContent).toBe('not required (overlay)');
    expect(cell('create_entities', 'timeout_ms').textContent).toBe('5 s (overlay)');
    expect(cell('create_entities', 'effect').dataset.origin).toBe('annotations');

    // clear it: back to the annotations
    await user.click(
      toolRow('create_entities').getByRole('button', { name: 'Clear overlay of create_entities' }),
    );
    await waitFor(() => expect(cell('create_entities', 'risk_level').dataset.origin).toBe('annotations'));
    expect(toolRow('create_entities').getByTestId('mcp-tool-answer').textContent).toBe(
      'Overlay of create_entities cleared.',
    );
    cleanup();
  }, 90_000);

  it('a registration the Hub refuses is worded from its code next to the button, in both languages', async () => {
    const { user, s } = await openSettings();
    const form = within(s.getByRole('form', { name: 'Add an MCP server' }));
    await user.type(form.getByLabelText('Id (a–z, 0–9, - and _)'), 'broken');
    await user.type(form.getByLabelText('Name'), 'Broken');
    await user.type(form.getByLabelText('Command'), join(dir, 'no-such-server'));
    await user.click(form.getByRole('button', { name: 'Add server' }));
    const answer = await form.findByTestId('mcp-add-answer', {}, { timeout: 20_000 });
    expect(answer.getAttribute('role')).toBe('alert');
    expect(answer.textContent).toMatch(
      /^The MCP server could not be started or reached, or did not answer in time; nothing was registered\. As reported: /,
    );
    act(() => useApp.setState({ lang: 'zh' }));
    await waitFor(() => expect(answer.textContent).toMatch(/^无法启动或连接该 MCP 服务器.*原始信息/));
    act(() => useApp.setState({ lang: 'en' }));
    // an id that is taken is answered at the id field
    await user.clear(form.getByLabelText('Id (a–z, 0–9, - and _)'));
    await user.type(form.getByLabelText('Id (a–z, 0–9, - and _)'), 'shop-a');
    await user.click(form.getByRole('button', { name: 'Add server' }));
    await waitFor(() =>
      expect(form.getByTestId('mcp-add-answer').textContent).toBe(
        'A system with this id is registered already; choose another id.',
      ),
    );
    expect(s.getAllByTestId('mcp-server')).toHaveLength(1);
    cleanup();
  }, 60_000);

  it('the kind is shown beside the system in the task form and on the timeline', async () => {
    render(<TaskCreateForm onDone={() => {}} />);
    const memory = await screen.findByText(
      (_, el) => el?.tagName === 'LABEL' && /Memory graph/.test(el.textContent ?? ''),
    );
    expect(within(memory).getByTestId('system-kind').textContent).toBe('MCP');
    const shop = screen.getAllByText(
      (_, el) => el?.tagName === 'LABEL' && /Shop A/.test(el.textContent ?? ''),
    )[0]!;
    expect(within(shop).getByTestId('system-kind').textContent).toBe('HTTP');
    cleanup();

    render(
      <TaskTimeline
        entries={[
          {
            at: new Date().toISOString(),
            kind: 'outcome',
            invocation_id: 'inv_00000001',
            tool: 'read_graph',
            state: 'succeeded',
            task_action: null,
            reason_code: null,
            authorization_ref: 'mcp-memory',
            label: 'Completed',
          },
        ]}
      />,
    );
    const item = await screen.findByText(
      (_, el) => el?.tagName === 'LI' && /read_graph/.test(el.textContent ?? ''),
    );
    await waitFor(() => expect(within(item).getByTestId('system-kind').textContent).toBe('MCP'));
    cleanup();
  }, 30_000);

  it('Remove asks first; refused while a call awaits approval, worded from its code in both languages; then the server is gone', async () => {
    // an unannotated write of the memory server, made by hand: it waits for approval
    const session = await ok('createSession', {
      title: 'Pending',
      authorization_refs: ['mcp-memory'],
      task_id: null,
    });
    await ok('getConversation', { session_id: session.session_id });
    const del = (
      await ok('searchTools', { session_id: session.session_id, query: 'delete entities' })
    ).tools.find((t: { tool: string }) => t.tool === 'delete_entities');
    const run = await ok('runToolManually', {
      session_id: session.session_id,
      function_name: del.function_name,
      arguments: { entityNames: ['nobody'] },
    });
    expect(run.item.state).toBe('awaiting_approval');

    const { user, s } = await openSettings();
    const row = within(await s.findByTestId('mcp-server'));
    await user.click(row.getByRole('button', { name: 'Remove' }));
    const ask = within(row.getByRole('alertdialog', { name: 'Remove' }));
    expect(ask.getByText(/^Remove Memory graph\? The Hub retires it/)).toBeTruthy();
    await user.click(ask.getByRole('button', { name: 'Keep it' }));
    expect(row.queryByRole('alertdialog')).toBeNull();

    await user.click(row.getByRole('button', { name: 'Remove' }));
    await user.click(
      within(row.getByRole('alertdialog', { name: 'Remove' })).getByRole('button', {
        name: 'Remove the server',
      }),
    );
    const answer = await row.findByTestId('mcp-server-answer', {}, { timeout: 20_000 });
    expect(answer.getAttribute('role')).toBe('alert');
    expect(answer.textContent).toMatch(/^The system still has calls whose outcome is not final/);
    act(() => useApp.setState({ lang: 'zh' }));
    await waitFor(() => expect(answer.textContent).toMatch(/^该系统仍有结果尚未确定的调用/));
    act(() => useApp.setState({ lang: 'en' }));
    expect(s.getAllByTestId('mcp-server')).toHaveLength(1);

    const pending = (await ok('listApprovals', {})).approvals.find(
      (a: { tool: string }) => a.tool === 'delete_entities',
    );
    await ok('decideApproval', { approval_id: pending.approval_id, decision: 'deny' });
    await user.click(row.getByRole('button', { name: 'Remove' }));
    await user.click(
      within(row.getByRole('alertdialog', { name: 'Remove' })).getByRole('button', {
        name: 'Remove the server',
      }),
    );
    await waitFor(() => expect(s.queryAllByTestId('mcp-server')).toHaveLength(0), { timeout: 20_000 });
    expect(s.getByText('No MCP server yet.')).toBeTruthy();
    cleanup();
  }, 60_000);

  it('removed behind its back (another window, the operator CLI): reading its tools again and an overlay edit are refused, worded from system_retired in both languages, nothing changed', async () => {
    // added again under the same id: the Hub revives it
    await ok('addMcpServer', {
      system_id: 'memory',
      name: 'Memory graph',
      server: {
        transport: 'stdio',
        command: process.execPath,
        args: [MEMORY],
        env: [{ name: 'MEMORY_FILE_PATH', value: join(dir, 'memory.jsonl'), secret: false }],
        cwd: null,
      },
    });
    const { user, s } = await openSettings();
    const row = within(await s.findByTestId('mcp-server'));
    await user.click(row.getByRole('button', { name: 'Show tools' }));
    const table = within(await row.findByTestId('mcp-tools'));
    const toolRow = () =>
      within(table.getAllByTestId('mcp-tool-row').find((r) => r.dataset.tool === 'create_entities')!);
    await waitFor(() =>
      expect(toolRow().getByRole('button', { name: 'Edit overlay of create_entities' })).toBeTruthy(),
    );
    const before = (await ok('listMcpTools', { system_id: 'memory' })).tools;

    // removed elsewhere while this screen still shows it
    expect((await ok('removeMcpServer', { system_id: 'memory' })).retired_at).toEqual(expect.any(String));

    await user.click(row.getByRole('button', { name: 'Read tools again' }));
    const answer = await row.findByTestId('mcp-server-answer', {}, { timeout: 20_000 });
    expect(answer.getAttribute('role')).toBe('alert');
    expect(answer.textContent).toMatch(/^That business system has been retired \(removed\) on the Hub/);

    await user.click(toolRow().getByRole('button', { name: 'Edit overlay of create_entities' }));
    const overlay = within(await table.findByRole('form', { name: 'Overlay of create_entities' }));
    await user.selectOptions(overlay.getByLabelText('Risk'), 'high');
    await user.click(overlay.getByRole('button', { name: 'Save overlay' }));
    const refused = await toolRow().findByTestId('mcp-tool-answer', {}, { timeout: 20_000 });
    expect(refused.getAttribute('role')).toBe('alert');
    expect(refused.textContent).toMatch(
      /^That business system has been retired \(removed\) on the Hub: .*its tools, overlays and authorizations can no longer be changed/,
    );
    act(() => useApp.setState({ lang: 'zh' }));
    await waitFor(() => expect(refused.textContent).toMatch(/^该业务系统已在 Hub 上停用（已移除）/));
    expect(answer.textContent).toMatch(/^该业务系统已在 Hub 上停用（已移除）/);
    act(() => useApp.setState({ lang: 'en' }));
    // nothing changed: its tools read as before (reading a retired server's tools stays allowed)
    expect((await ok('listMcpTools', { system_id: 'memory' })).tools).toEqual(before);
    cleanup();
  }, 60_000);
});
