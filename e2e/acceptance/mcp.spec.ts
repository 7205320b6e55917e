/**
 * MCP servers in the desk, in Chromium through the product's browser-mode launcher on its embedded
 * default (the local Hub's operator manages MCP servers). Every word looked up in the app's
 * catalogue by its key, never typed in English here.
 *  1. a registration the Hub refuses (a tool list with a duplicated name) is worded from its code
 *     next to the form; nothing is registered;
 *  2. Settings adds `@modelcontextprotocol/server-memory` (stdio, one secret variable) and shows
 *     its tools; a read-only overlay on a read tool and a write overlay (no approval) on
 *     create_entities are set, each value marked as the overlay's;
 *  3. a conversation on the new system runs the read and the write by hand: the cards say MCP and
 *     show the result; the write reached the memory server's graph exactly once;
 *  4. a write with no overlay (MCP's defaults: high risk, approval) waits for approval, and Needs
 *     attention lists it with the kind MCP;
 *  5. the secret is nowhere on screen, in the desk's data folder or in the app's log;
 *  6. Remove asks for a confirmation; with the write of 4 still awaiting approval the Hub refuses
 *     it, worded from its code next to the server; once that call is denied, Remove (confirmed)
 *     takes the server out of the list and the Hub has retired it (its process stopped);
 *  7. added again under the same id (revived), then removed behind the screen's back (the Hub's
 *     admin API, as another window or the operator CLI would): "Read tools again" and an overlay
 *     edit are refused, worded from `system_retired` next to the server and the tool; nothing
 *     changed on the Hub.
 */
import { expect, test, type Locator, type Page } from '@playwright/test';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { en } from '../../src-renderer/src/i18n/en.js';
import { stateLabel } from '../../src-renderer/src/i18n/index.js';
import { secretsInFiles } from '../../test/support/data-scan.js';
import { startLocalStack, type LocalStack } from '../harness/local-stack.js';
import { goTo, newConversation, openApp, openRunner, screenshot } from './support/ui.js';

test.describe.configure({ mode: 'serial', timeout: 180_000 });

const require = createRequire(import.meta.url);
const MEMORY = require.resolve('@modelcontextprotocol/server-memory/dist/index.js');
const TEST_SERVER = join(import.meta.dirname, '../../test/hub/mcp/fixtures/test-server.mjs');
const SECRET = 'sk-e2e-mcp-secret-5d0b7c41';
const SERVER_NAME = 'Memory graph';

let stack: LocalStack;
let page: Page;
test.beforeAll(async ({ browser }) => {
  stack = await startLocalStack({ name: 'mcp' });
  page = await browser.newPage();
  const host = await stack.startHost();
  await openApp(page, host.url);
});
test.afterAll(async () => {
  await page?.close().catch(() => undefined);
  await stack?.close();
});

const memoryFile = () => join(stack.dir, 'memory.jsonl');
const section = () => page.getByTestId('mcp-servers');
const addForm = () => section().getByRole('form', { name: en['mcp.add.title'] });
const label = (state: string) => stateLabel(state, 'en');

async function fillStdio(form: Locator, id: string, name: string, args: string[]): Promise<void> {
  await form.getByLabel(en['mcp.add.systemId']).fill(id);
  await form.getByLabel(en['mcp.add.name'], { exact: true }).fill(name);
  await form.getByLabel(en['mcp.add.command'], { exact: true }).fill(process.execPath);
  await form.getByLabel(en['mcp.add.args']).fill(args.join('\n'));
}

async function addVariable(form: Locator, n: number, name: string, value: string, secret: boolean) {
  await form.getByRole('button', { name: en['mcp.add.envAdd'] }).click();
  await form.getByLabel(en['mcp.add.envName'].replace('{n}', String(n))).fill(name);
  if (secret)
    await form
      .getByTestId('mcp-env-row')
      .nth(n - 1)
      .getByLabel(en['mcp.add.envSecret'])
      .check();
  await form.getByLabel(en['mcp.add.envValue'].replace('{n}', String(n))).fill(value);
}

const toolRow = (tool: string) =>
  section()
    .getByTestId('mcp-tool-row')
    .and(page.locator(`[data-tool="${tool}"]`));
const cell = (tool: string, field: string) => toolRow(tool).locator(`td[data-field="${field}"]`);

async function setOverlay(tool: string, values: { effect: string; risk: string; approval: 'yes' | 'no' }) {
  await toolRow(tool)
    .getByRole('button', { name: en['mcp.tools.edit'].replace('{tool}', tool) })
    .click();
  const form = section().getByRole('form', { name: en['mcp.overlay.title'].replace('{tool}', tool) });
  await form.getByLabel(en['mcp.overlay.effect']).selectOption(values.effect);
  await form.getByLabel(en['mcp.overlay.risk']).selectOption(values.risk);
  await form.getByLabel(en['mcp.overlay.approval']).selectOption(values.approval);
  await form.getByRole('button', { name: en['mcp.overlay.save'] }).click();
  await expect(toolRow(tool).getByTestId('mcp-tool-answer')).toHaveText(
    en['mcp.overlay.saved'].replace('{tool}', tool),
  );
}

const runner = () => page.getByRole('region', { name: en['manual.title'] });

async function chooseTool(query: string, tool: string): Promise<void> {
  await openRunner(page);
  await runner().getByLabel(en['manual.query']).fill(query);
  await runner().getByRole('button', { name: en['manual.search'] }).click();
  const select = runner().locator('select').first();
  const pick = () =>
    select.evaluate(
      (el: HTMLSelectElement, want: string) =>
        [...el.options].find((o) => (o.textContent ?? '').startsWith(want))?.value ?? '',
      `${tool} — ${SERVER_NAME} · ${en['systemKind.mcp']}`,
    );
  await expect.poll(pick).not.toBe('');
  await select.selectOption(await pick());
  await expect(runner().getByTestId('system-kind')).toHaveText(en['systemKind.mcp']);
}

const cardOf = (tool: string) =>
  page
    .getByRole('log', { name: en['conv.items'] })
    .getByTestId('tool-card')
    .filter({
      has: page.getByTestId('tool-card-summary').locator('strong', { hasText: new RegExp(`^${tool}$`) }),
    });

/** Entities the memory server wrote to its graph file (one JSON line each). */
function entitiesNamed(name: string): number {
  if (!existsSync(memoryFile())) return 0;
  return readFileSync(memoryFile(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as { type?: string; name?: string })
    .filter((e) => e.type === 'entity' && e.name === name).length;
}

test('1. a registration the Hub refuses is worded from its code next to the form; nothing registered', async () => {
  await goTo(page, 'Settings');
  await expect(section().getByText(en['mcp.none'])).toBeVisible();
  const form = addForm();
  await fillStdio(form, 'dupes', 'Dupes', [TEST_SERVER]);
  await addVariable(form, 1, 'MODE', 'duplicate_name', false);
  await form.getByRole('button', { name: en['mcp.add.submit'] }).click();
  const answer = form.getByTestId('mcp-add-answer');
  await expect(answer).toHaveAttribute('role', 'alert');
  await expect(answer).toContainText(en['code.mcp_tools_invalid']);
  await expect(answer).toContainText(en['feedback.original']);
  await screenshot(page, 'mcp-01-registration-refused');
  const systems = await stack.admin<{ systems: { system_id: string }[] }>('GET', '/admin/v1/systems');
  expect(systems.systems.map((s) => s.system_id)).not.toContain('dupes');
  await expect(section().getByTestId('mcp-server')).toHaveCount(0);
  await form.getByRole('button', { name: en['mcp.add.envRemove'].replace('{n}', '1') }).click();
});

test('2. Settings adds the memory server, shows its tools, and sets a read and a write overlay', async () => {
  const form = addForm();
  await fillStdio(form, 'memory', SERVER_NAME, [MEMORY]);
  await addVariable(form, 1, 'MEMORY_FILE_PATH', memoryFile(), false);
  await addVariable(form, 2, 'MEMORY_TOKEN', SECRET, true);
  await form.getByRole('button', { name: en['mcp.add.submit'] }).click();
  await expect(form.getByTestId('mcp-add-answer')).toHaveText(/^Added Memory graph: \d+ tools\.$/, {
    timeout: 30_000,
  });
  const server = section().getByTestId('mcp-server');
  await expect(server.getByTestId('mcp-server-connection')).toContainText(en['mcp.connection.connected']);
  await expect(server).toContainText('MEMORY_TOKEN');

  await server.getByRole('button', { name: en['mcp.showTools'] }).click();
  await expect(cell('search_nodes', 'effect')).toHaveAttribute('data-origin', 'annotations');
  await setOverlay('search_nodes', { effect: 'read', risk: 'low', approval: 'no' });
  await setOverlay('create_entities', { effect: 'write', risk: 'medium', approval: 'no' });
  await expect(cell('search_nodes', 'effect')).toHaveAttribute('data-origin', 'overlay');
  await expect(cell('search_nodes', 'risk_level')).toHaveText(
    `${en['mcp.risk.low']} (${en['mcp.origin.overlay']})`,
  );
  await expect(cell('create_entities', 'approval')).toHaveText(
    `${en['mcp.value.notRequired']} (${en['mcp.origin.overlay']})`,
  );
  await expect(cell('delete_entities', 'approval')).toHaveText(
    `${en['mcp.value.required']} (${en['mcp.origin.annotations']})`,
  );
  await expect(page.locator('body')).not.toContainText(SECRET);
  await screenshot(page, 'mcp-02-settings-tools');
});

test('3. a read and a write by hand on the MCP system: cards say MCP with the result; one write in the graph', async () => {
  await newConversation(page, { title: 'MCP memory', systems: [SERVER_NAME] });

  await chooseTool('create entities', 'create_entities');
  await runner()
    .getByLabel(/^entities/)
    .fill(JSON.stringify([{ name: 'Order-1042', entityType: 'order', observations: ['packed'] }]));
  await runner().getByRole('button', { name: en['manual.review'] }).click();
  const preview = runner().getByTestId('write-preview');
  await expect(preview).toContainText(SERVER_NAME);
  await preview.getByRole('button', { name: en['manual.confirmWrite'] }).dblclick();
  const write = cardOf('create_entities');
  await expect(write.getByTestId('tool-card-state')).toHaveText(label('succeeded'), { timeout: 30_000 });
  await expect(write.getByTestId('tool-card-summary').getByTestId('system-kind')).toHaveText(
    en['systemKind.mcp'],
  );
  await expect(write.getByTestId('tool-card-result')).toContainText('Order-1042');
  expect(entitiesNamed('Order-1042')).toBe(1);

  await chooseTool('search nodes', 'search_nodes');
  await runner()
    .getByLabel(/^query/)
    .fill('Order-1042');
  await runner().getByRole('button', { name: en['manual.run'] }).click();
  const read = cardOf('search_nodes');
  await expect(read.getByTestId('tool-card-state')).toHaveText(label('succeeded'), { timeout: 30_000 });
  await expect(read.getByTestId('tool-card-summary').getByTestId('system-kind')).toHaveText(
    en['systemKind.mcp'],
  );
  await expect(read.getByTestId('tool-card-result')).toContainText('packed');
  await screenshot(page, 'mcp-03-cards');
  expect(entitiesNamed('Order-1042')).toBe(1);
});

test('4. a write with no overlay waits for approval; Needs attention lists it with the kind MCP', async () => {
  await chooseTool('delete entities', 'delete_entities');
  await runner()
    .getByLabel(/^entityNames/)
    .fill(JSON.stringify(['Order-1042']));
  await runner().getByRole('button', { name: en['manual.review'] }).click();
  await runner()
    .getByTestId('write-preview')
    .getByRole('button', { name: en['manual.confirmWrite'] })
    .click();
  const pending = cardOf('delete_entities');
  await expect(pending.getByTestId('tool-card-state')).toHaveText(label('awaiting_approval'), {
    timeout: 30_000,
  });
  await expect(pending.getByTestId('tool-card-summary').getByTestId('system-kind')).toHaveText(
    en['systemKind.mcp'],
  );
  expect(entitiesNamed('Order-1042')).toBe(1); // nothing was sent

  await goTo(page, 'Needs attention');
  const row = page.getByTestId('idle-row').filter({ hasText: 'delete_entities' });
  await expect(row.getByTestId('system-kind')).toHaveText(en['systemKind.mcp']);
  await expect(row.getByTestId('idle-state')).toHaveText(label('awaiting_approval'));
});

test('5. the secret is nowhere on screen, in the data folder or in the log', async () => {
  await goTo(page, 'Settings');
  await expect(section().getByTestId('mcp-server')).toBeVisible();
  await expect(page.locator('body')).not.toContainText(SECRET);
  expect(secretsInFiles([stack.desk], { mcp_secret: SECRET })).toEqual([]);
  expect(readFileSync(stack.logFile, 'utf8')).not.toContain(SECRET);
});

test('6. Remove: confirmed, refused while a call awaits approval (worded from its code), then the server is gone', async () => {
  await goTo(page, 'Settings');
  const server = section().getByTestId('mcp-server');
  await expect(server).toHaveCount(1);
  const confirmPanel = server.getByTestId('mcp-server-remove-confirm');

  // the way out changes nothing
  await server.getByTestId('mcp-server-remove').click();
  await expect(confirmPanel).toContainText(en['mcp.remove.confirm'].replace('{name}', SERVER_NAME));
  await confirmPanel.getByRole('button', { name: en['mcp.remove.no'] }).click();
  await expect(confirmPanel).toHaveCount(0);

  await server.getByTestId('mcp-server-remove').click();
  await confirmPanel.getByRole('button', { name: en['mcp.remove.yes'] }).click();
  const answer = server.getByTestId('mcp-server-answer');
  await expect(answer).toHaveAttribute('role', 'alert');
  await expect(answer).toContainText(en['code.system_has_unresolved_invocations']);
  await screenshot(page, 'mcp-04-remove-refused');
  await expect(server).toHaveCount(1);

  const pending = await stack.admin<{ approvals: { approval_id: string; tool: string }[] }>(
    'GET',
    '/admin/v1/approvals?state=pending',
  );
  const approval = pending.approvals.find((a) => a.tool === 'delete_entities');
  expect(approval).toBeDefined();
  await stack.admin('POST', `/admin/v1/approvals/${approval!.approval_id}/decision`, {
    decision_id: 'e2e-deny-before-remove',
    decision: 'deny',
  });

  await server.getByTestId('mcp-server-remove').click();
  await confirmPanel.getByRole('button', { name: en['mcp.remove.yes'] }).click();
  await expect(section().getByTestId('mcp-server')).toHaveCount(0, { timeout: 30_000 });
  await expect(section().getByText(en['mcp.none'])).toBeVisible();
  const systems = await stack.admin<{ systems: { system_id: string; retired_at?: string | null }[] }>(
    'GET',
    '/admin/v1/systems',
  );
  expect(systems.systems.find((s) => s.system_id === 'memory')?.retired_at).toBeTruthy();
});

test('7. removed behind the screen’s back: reading its tools again and an overlay edit are refused, worded from system_retired', async () => {
  const form = addForm();
  await fillStdio(form, 'memory', SERVER_NAME, [MEMORY]);
  await addVariable(form, 1, 'MEMORY_FILE_PATH', memoryFile(), false);
  await form.getByRole('button', { name: en['mcp.add.submit'] }).click();
  await expect(form.getByTestId('mcp-add-answer')).toHaveText(/^Added Memory graph: \d+ tools\.$/, {
    timeout: 30_000,
  });
  const server = section().getByTestId('mcp-server');
  await expect(server).toHaveCount(1);
  await server.getByRole('button', { name: en['mcp.showTools'] }).click();
  await expect(cell('create_entities', 'effect')).toBeVisible();
  const before = await stack.admin<{ tools: unknown[] }>('GET', '/admin/v1/systems/memory/tools');

  await stack.admin('POST', '/admin/v1/systems/memory/retire');

  await server.getByRole('button', { name: en['mcp.refresh'] }).click();
  const answer = server.getByTestId('mcp-server-answer');
  await expect(answer).toHaveAttribute('role', 'alert');
  await expect(answer).toContainText(en['code.system_retired']);

  await toolRow('create_entities')
    .getByRole('button', { name: en['mcp.tools.edit'].replace('{tool}', 'create_entities') })
    .click();
  const overlay = section().getByRole('form', {
    name: en['mcp.overlay.title'].replace('{tool}', 'create_entities'),
  });
  await overlay.getByLabel(en['mcp.overlay.risk']).selectOption('high');
  await overlay.getByRole('button', { name: en['mcp.overlay.save'] }).click();
  const refused = toolRow('create_entities').getByTestId('mcp-tool-answer');
  await expect(refused).toHaveAttribute('role', 'alert');
  await expect(refused).toContainText(en['code.system_retired']);
  await screenshot(page, 'mcp-05-removed-elsewhere');
  expect(await stack.admin<{ tools: unknown[] }>('GET', '/admin/v1/systems/memory/tools')).toEqual(before);
});
