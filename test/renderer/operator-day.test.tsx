// The operator's day in the renderer, against the real main-process handlers, Hub and demo systems
// (in process): a read's arguments and result on its card without Inspect, kept across a view
// switch and a reopened conversation; the manual runner never pre-selects a write, shows a write's
// exact request and sends it once however often Confirm is clicked, and clears the form after it.
// Words are looked up in the catalog by code, never typed in English here.
// @vitest-environment jsdom
import { act, cleanup, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import React from 'react';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ToolView } from '../../src-shared/ipc/views.js';
import { loadAll } from '../../src-renderer/src/bootstrap.js';
import { App } from '../../src-renderer/src/components/App.js';
import { call } from '../../src-renderer/src/api-client.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { zh as zhWords } from '../../src-renderer/src/i18n/zh.js';
import { stateLabel } from '../../src-renderer/src/i18n/index.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useSessions } from '../../src-renderer/src/store/sessions.js';
import { useTasks } from '../../src-renderer/src/store/tasks.js';
import type { TestDesk } from '../app/support.js';
import { startWiredDesk, type WiredDesk } from './support/wired-desk.js';

let desk: TestDesk;
let wired: WiredDesk | undefined;

beforeAll(async () => {
  wired = await startWiredDesk();
  desk = wired.desk;
}, 120_000);
afterAll(async () => {
  cleanup();
  await wired?.close();
}, 120_000);

const runner = () => screen.getByRole('region', { name: en['manual.title'] });
const cardsOf = (tool: string) =>
  screen
    .queryAllByTestId('tool-card')
    .filter((c) => within(c).queryByTestId('tool-card-summary')?.textContent?.startsWith(tool));
const nav = (name: string) =>
  within(screen.getByRole('navigation', { name: en['nav.main'] })).getByRole('button', {
    name: new RegExp(`^${name}`),
  });

async function searchTools(
  user: ReturnType<typeof userEvent.setup>,
  query: string,
): Promise<HTMLSelectElement> {
  const form = runner();
  const input = within(form).getByLabelText(en['manual.query']);
  await user.clear(input);
  await user.type(input, query);
  await user.click(within(form).getByRole('button', { name: en['manual.search'] }));
  return (await within(runner()).findByLabelText(en['manual.tool'], {
    selector: 'select',
  })) as HTMLSelectElement;
}

describe("the operator's day in the renderer", () => {
  it('a search for a read never pre-selects a write', async () => {
    const user = userEvent.setup();
    render(<App />);
    await screen.findByTestId('conversation-title', {}, { timeout: 10_000 });
    const sessionId = useSessions.getState().currentId ?? '';
    const { tools } = await call('searchTools', { session_id: sessionId, query: 'inventory stock' });
    expect(tools.some((t) => t.effect === 'write')).toBe(true); // the query finds writes too
    const select = await searchTools(user, 'inventory stock');
    const chosen = tools.find((t) => t.function_name === select.value);
    expect(chosen?.effect).toBe('read');
  });

  it("shows a read's arguments and result on its card, after a view switch and a reopen too", async () => {
    const user = userEvent.setup();
    const select = await searchTools(user, 'product details');
    const sessionId = useSessions.getState().currentId ?? '';
    const { tools } = await call('searchTools', { session_id: sessionId, query: 'product details' });
    const read = tools.find(
      (t: ToolView) => t.tool === 'get_product' && t.authorization_ref === 'auth-shop-a',
    );
    expect(read).toBeDefined();
    await user.selectOptions(select, read?.function_name ?? '');
    await user.type(within(runner()).getByLabelText(/^product_id/), '42');
    await user.click(within(runner()).getByRole('button', { name: en['manual.run'] }));

    await waitFor(() => expect(cardsOf('get_product')).toHaveLength(1), { timeout: 15_000 });
    const card = () => cardsOf('get_product')[0]!;
    await waitFor(() =>
      expect(within(card()).getByTestId('tool-card-state').textContent).toBe(stateLabel('succeeded', 'en')),
    );
    expect(within(card()).getByTestId('tool-card-summary').textContent).toContain('product_id 42');
    const result = () => within(card()).getByTestId('tool-card-result') as HTMLDetailsElement;
    expect(result().open).toBe(true);
    expect(result().textContent).toContain('Walnut cutting board');
    const args = () => within(card()).getByTestId('tool-card-arguments') as HTMLDetailsElement;
    expect(args().open).toBe(false);
    expect(args().textContent).toContain('"product_id": 42');
    // No Inspect was needed: the card shows what came back.
    expect(screen.queryAllByRole('status').filter((s) => s.className === 'action-result')).toHaveLength(0);

    await user.click(within(args()).getByText(en['card.arguments']));
    await waitFor(() => expect(args().open).toBe(true));
    await user.click(nav(en['nav.tasks']));
    expect(cardsOf('get_product')).toHaveLength(0);
    await user.click(nav(en['nav.conversations']));
    await waitFor(() => expect(cardsOf('get_product')).toHaveLength(1));
    expect(result().textContent).toContain('Walnut cutting board');
    expect(args().open).toBe(true); // what the operator opened stays open

    // A reload: the conversation is read again from the archive, its cards with their results.
    await act(async () => {
      useSessions.setState({ conversations: {} });
      await useSessions.getState().open(sessionId);
    });
    await waitFor(() => expect(cardsOf('get_product')).toHaveLength(1));
    expect(result().textContent).toContain('Walnut cutting board');
  });

  it('a write shows its exact request, needs Confirm, is sent once on a double click, and the form is cleared', async () => {
    const user = userEvent.setup();
    const shopA = desk.root.local?.demo.shopA;
    if (!shopA) throw new Error('no demo shop');
    const sessionId = useSessions.getState().currentId ?? '';
    const select = await searchTools(user, 'edit product description');
    const { tools } = await call('searchTools', { session_id: sessionId, query: 'edit product description' });
    const write = tools.find(
      (t: ToolView) => t.tool === 'update_product_content' && t.authorization_ref === 'auth-shop-a',
    );
    expect(write?.effect).toBe('write');
    expect(select.value).not.toBe(write?.function_name);
    await user.selectOptions(select, write?.function_name ?? '');
    await user.type(within(runner()).getByLabelText(/^product_id/), '13');
    await user.type(within(runner()).getByLabelText(/^description/), 'Stonewashed linen towel.');
    const ledger0 = shopA.ledger().length;

    // The first click only shows the request.
    expect(within(runner()).queryByRole('button', { name: en['manual.run'] })).toBeNull();
    await user.click(within(runner()).getByRole('button', { name: en['manual.review'] }));
    const preview = within(runner()).getByTestId('write-preview');
    expect(within(preview).getByTestId('write-preview-arguments').textContent).toBe(
      JSON.stringify({ product_id: 13, description: 'Stonewashed linen towel.' }, null, 2),
    );
    expect(preview.textContent).toContain(write?.system_name ?? '?');
    expect(preview.textContent).toContain(write?.account ?? '?');
    expect(within(preview).getByTestId('write-preview-task').textContent).toBe(en['manual.previewNoTask']);
    expect(shopA.ledger().length).toBe(ledger0);

    await user.dblClick(within(preview).getByRole('button', { name: en['manual.confirmWrite'] }));
    await within(runner()).findByTestId('write-sent', {}, { timeout: 15_000 });
    await waitFor(() => expect(shopA.ledger().length).toBe(ledger0 + 1));
    // The form is cleared: a further click cannot send the same write again.
    expect((within(runner()).getByLabelText(/^product_id/) as HTMLInputElement).value).toBe('');
    expect(within(runner()).queryByTestId('write-preview')).toBeNull();
    await new Promise((r) => setTimeout(r, 300));
    expect(shopA.ledger().length).toBe(ledger0 + 1);
    await waitFor(() => expect(cardsOf('update_product_content')).toHaveLength(1));
  });

  it('a call whose result is not known has its id and next steps on the card; what the operator checked settles it', async () => {
    const user = userEvent.setup();
    const shopA = desk.root.local?.demo.shopA;
    if (!shopA) throw new Error('no demo shop');
    const sessionId = useSessions.getState().currentId ?? '';
    const { tools } = await call('searchTools', { session_id: sessionId, query: 'edit product description' });
    const write = tools.find(
      (t: ToolView) => t.tool === 'update_product_content' && t.authorization_ref === 'auth-shop-a',
    );
    shopA.faults.set({ operation: 'update_product_content', kind: 'drop_after_commit', times: 'once' });
    const ledger0 = shopA.ledger().length;
    const run = await call('runToolManually', {
      session_id: sessionId,
      function_name: write?.function_name ?? '',
      arguments: { product_id: 7, description: 'Blue-rim enamel mug.' },
    });
    const id = run.item.kind === 'tool_call' ? (run.item.invocation_id ?? '') : '';
    expect(id).not.toBe('');
    expect(shopA.ledger().length).toBe(ledger0 + 1); // the shop did it; its answer was lost

    const card = () => screen.getAllByTestId('tool-card').find((c) => c.textContent?.includes(id))!;
    await waitFor(() => expect(card()).toBeDefined());
    expect(within(card()).getByTestId('tool-card-state').textContent).toBe(stateLabel('unknown', 'en'));
    expect(within(card()).getByTestId('tool-card-invocation').textContent).toBe(id);
    expect(within(card()).getByRole('button', { name: en['card.inspect'] })).toBeDefined();
    expect(within(card()).getByRole('button', { name: en['card.resume'] })).toBeDefined();

    // The operator looked in the shop and found the edit there.
    await user.click(within(card()).getByRole('button', { name: en['card.attest'] }));
    const form = within(card()).getByTestId('attest-form');
    const confirm = within(form).getByRole('button', { name: en['attest.confirm'] });
    expect(confirm).toHaveProperty('disabled', true); // nothing chosen yet
    await user.click(within(form).getByLabelText(en['attest.succeeded']));
    await user.click(confirm);
    expect(within(form).getByRole('alert').textContent).toContain(en['attest.noteRequired']);
    await user.type(within(form).getByLabelText(en['attest.note']), 'Product 7 shows the new description.');
    await user.click(within(form).getByRole('button', { name: en['attest.confirm'] }));

    await waitFor(() =>
      expect(within(card()).getByTestId('tool-card-state').textContent).toBe(stateLabel('succeeded', 'en')),
    );
    expect(within(card()).getByTestId('tool-card-settlement').textContent).toContain(
      en['card.settled.succeeded'],
    );
    expect(within(card()).getByTestId('tool-card-settlement').textContent).toContain(
      'Product 7 shows the new description.',
    );
    expect(within(card()).queryByRole('button', { name: en['card.attest'] })).toBeNull();
    expect(shopA.ledger().length).toBe(ledger0 + 1); // nothing was sent
    // Reopened from the archive, the card still says a person settled it.
    await act(async () => {
      useSessions.setState({ conversations: {} });
      await useSessions.getState().open(sessionId);
    });
    await waitFor(() => expect(within(card()).getByTestId('tool-card-settlement')).toBeDefined());
  });

  it('words every card state in Chinese and shows the state with an icon per tone', async () => {
    act(() => useApp.setState({ lang: 'zh' }));
    const card = cardsOf('get_product')[0]!;
    expect(within(card).getByTestId('tool-card-state').textContent).toBe(stateLabel('succeeded', 'zh'));
    expect(card.querySelector('.state-icon')?.getAttribute('aria-label')).toBe('已完成');
    act(() => useApp.setState({ lang: 'en' }));
  });

  it('keeps the language and theme the operator chose in the settings file (a reload finds them)', async () => {
    const user = userEvent.setup();
    await user.selectOptions(screen.getByLabelText(en['lang.label']), 'zh');
    await user.click(
      screen.getByRole('button', { name: zhWords['theme.toggle'].replace('{mode}', zhWords['theme.dark']) }),
    );
    await waitFor(async () => {
      const info = await call('getAppInfo', {});
      expect(info.settings.preferences).toEqual({ lang: 'zh', theme: 'dark' });
    });
    // A reload: the app's state starts from its defaults and takes the saved choice.
    act(() => useApp.setState({ lang: 'en', theme: 'light' }));
    await act(async () => {
      await loadAll();
    });
    expect(useApp.getState()).toMatchObject({ lang: 'zh', theme: 'dark' });
    expect(document.documentElement.dataset.theme).toBe('dark');
    await user.selectOptions(screen.getByLabelText(zhWords['lang.label']), 'en');
    await user.click(
      screen.getByRole('button', { name: en['theme.toggle'].replace('{mode}', en['theme.light']) }),
    );
    await waitFor(async () =>
      expect((await call('getAppInfo', {})).settings.preferences).toEqual({ lang: 'en', theme: 'light' }),
    );
  });

  it('a task: its timeline is current on the first visit, and Cancel asks first and says it is final', async () => {
    const user = userEvent.setup();
    await act(async () => {
      await useTasks.getState().create({
        title: 'Day task',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
        write_budget: 3,
        in_flight_limit: 1,
      });
    });
    // A load of the app: the task list is read again, the panel opens on the first task.
    act(() => useTasks.setState({ tasks: {}, selectedId: null, timeline: [] }));
    await act(async () => {
      await useTasks.getState().load();
    });
    await user.click(nav(en['nav.tasks']));
    const detail = await screen.findByTestId('task-detail');
    await waitFor(() =>
      expect(within(detail).getByRole('list', { name: en['timeline.list'] })).toBeDefined(),
    );
    expect(detail.textContent).not.toContain(en['task.timelineEmpty']);

    await user.click(within(detail).getByRole('button', { name: en['task.cancel'] }));
    const confirm = within(detail).getByTestId('cancel-confirm');
    expect(confirm.textContent).toContain(en['task.cancelFinal']);
    expect(within(detail).getByTestId('task-state').textContent).toBe(en['task.state.active']);
    await user.click(within(confirm).getByRole('button', { name: en['task.cancelKeep'] }));
    expect(within(detail).queryByTestId('cancel-confirm')).toBeNull();
    expect(within(detail).getByTestId('task-state').textContent).toBe(en['task.state.active']);
    await user.click(within(detail).getByRole('button', { name: en['task.cancel'] }));
    await user.click(within(detail).getByRole('button', { name: en['task.cancelConfirm'] }));
    await waitFor(() =>
      expect(within(detail).getByTestId('task-state').textContent).toBe(en['task.state.cancelled']),
    );
  });

  it('approvals: the system by name, Resume for an approved call, and a link to its conversation', async () => {
    const user = userEvent.setup();
    const shopA = desk.root.local?.demo.shopA;
    if (!shopA) throw new Error('no demo shop');
    const sessionId = useSessions.getState().currentId ?? '';
    const { tools } = await call('searchTools', { session_id: sessionId, query: 'update product price' });
    const edit = tools.find(
      (t: ToolView) => t.tool === 'update_product' && t.authorization_ref === 'auth-shop-a',
    );
    const run = await call('runToolManually', {
      session_id: sessionId,
      function_name: edit?.function_name ?? '',
      arguments: { product_id: 42, price: 2500 },
    });
    expect(run.item).toMatchObject({ kind: 'tool_call', state: 'awaiting_approval' });
    const id = run.item.kind === 'tool_call' ? (run.item.invocation_id ?? '') : '';
    const ledger0 = shopA.ledger().length;
    await user.click(nav(en['nav.approvals']));
    const row = () => screen.getAllByTestId('approval').find((r) => r.textContent?.includes(id))!;
    await waitFor(() => expect(row()).toBeDefined());
    expect(within(row()).getByTestId('approval-system').textContent).toBe('Shop A (homeware)');
    expect(row().textContent).not.toContain('auth-shop-a');
    await user.click(within(row()).getByRole('button', { name: en['approvals.approve'] }));
    const approved = en['approvals.approval'].replace('{state}', en['approvalState.approved']);
    await waitFor(() => expect(row().textContent).toContain(approved), { timeout: 10_000 });
    await within(row()).findByRole('button', { name: en['card.resume'] }, { timeout: 10_000 });
    expect(shopA.ledger().length).toBe(ledger0); // approving ran nothing
    await user.click(within(row()).getByRole('button', { name: en['card.resume'] }));
    await waitFor(() => expect(shopA.ledger().filter((l) => l.idempotency_key === id)).toHaveLength(1), {
      timeout: 10_000,
    });
    await user.click(within(row()).getByRole('button', { name: en['idle.openConversation'] }));
    await waitFor(() => expect(useApp.getState().view).toBe('conversations'));
    expect(useSessions.getState().currentId).toBe(sessionId);
  });

  it("a conversation under a task: exactly the task's authorizations, its title and boundary in the header, only its tools and fields offered", async () => {
    const user = userEvent.setup();
    await act(async () => {
      await useTasks.getState().create({
        title: 'Boundary task',
        authorizations: [{ authorization_ref: 'auth-shop-a', tools: ['update_product_content'] }],
        write_budget: 4,
        in_flight_limit: 1,
        constraints: [
          {
            authorization_ref: 'auth-shop-a',
            tool: 'update_product_content',
            schema: {
              type: 'object',
              properties: { product_id: { enum: [13] } },
              propertyNames: { enum: ['product_id', 'description'] },
            },
            description: 'Description only for product 13',
          },
        ],
      });
    });
    await user.click(nav(en['nav.tasks']));
    const detail = await screen.findByTestId('task-detail');
    await waitFor(() =>
      expect(within(detail).getByTestId('task-boundary').textContent).toContain('Shop A (homeware)'),
    );
    expect(within(detail).getByTestId('task-boundary').textContent).toContain('update_product_content');
    // The rule is worded from its schema in the operator's language, not the English description.
    expect(within(detail).getByTestId('task-boundary').textContent).toContain(
      'product_id only 13 · may change only: description',
    );
    await user.click(within(detail).getByRole('button', { name: en['task.startConversation'] }));
    const form = within(detail).getByRole('form', { name: en['sessions.new'] });
    const boxes = () =>
      within(within(form).getByRole('group', { name: en['sessions.scope'] })).getAllByRole('checkbox');
    await waitFor(() => expect(boxes().length).toBeGreaterThan(1));
    await waitFor(() =>
      expect(
        boxes()
          .filter((b) => (b as HTMLInputElement).checked)
          .map((b) => b.parentElement?.textContent ?? ''),
      ).toEqual([expect.stringMatching(/^Shop A/)]),
    );
    await user.type(within(form).getByLabelText(en['sessions.newTitle']), 'Under the task');
    await user.click(within(form).getByRole('button', { name: en['sessions.create'] }));
    await waitFor(() => expect(screen.getByTestId('conversation-title').textContent).toBe('Under the task'));
    const header = screen.getByTestId('conversation-title').closest('header')!;
    expect(header.textContent).toContain('Boundary task');
    expect(header.textContent).not.toContain(useTasks.getState().selectedId ?? '?');
    expect(within(header).getByTestId('task-boundary-budget').textContent).toContain('4');

    const select = await searchTools(user, 'product');
    const offered = [...select.options].map((o) => o.value).filter((v) => v !== '');
    expect(offered).toHaveLength(1); // only the task's one tool, no other tool of the shop
    await user.selectOptions(select, offered[0]!);
    const labels = within(runner())
      .getAllByRole('textbox')
      .map((el) => el.closest('label')?.textContent ?? '');
    expect(labels.some((l) => l.startsWith('description'))).toBe(true);
    expect(labels.some((l) => l.startsWith('title'))).toBe(false);
  });

  it('a refusal by the task names the argument and the rule, in both languages', async () => {
    const sessionId = useSessions.getState().currentId ?? '';
    const { tools } = await call('searchTools', { session_id: sessionId, query: 'product' });
    const edit = tools.find((t: ToolView) => t.tool === 'update_product_content');
    expect(edit).toBeDefined();
    const run = await call('runToolManually', {
      session_id: sessionId,
      function_name: edit?.function_name ?? '',
      arguments: { product_id: 7, title: 'Cheaper mug' },
    });
    expect(run.item).toMatchObject({ kind: 'tool_call', feedback: { code: 'constraint_violation' } });
    const card = () =>
      screen.getAllByTestId('tool-card').find((c) => c.textContent?.includes('Cheaper mug'))!;
    await waitFor(() => expect(card()).toBeDefined());
    const items = () =>
      [...within(card()).getByTestId('tool-card-breaches').querySelectorAll('li')].map(
        (li) => li.textContent,
      );
    expect(items()).toEqual([
      en['card.breach.name'].replace('{field}', 'title'),
      en['card.breach.value'].replace('{field}', 'product_id'),
    ]);
    act(() => useApp.setState({ lang: 'zh' }));
    expect(items()).toEqual([
      zhWords['card.breach.name'].replace('{field}', 'title'),
      zhWords['card.breach.value'].replace('{field}', 'product_id'),
    ]);
    act(() => useApp.setState({ lang: 'en' }));
  });

  it('the task form is laid out by system, then reads and writes, with a rule under its write tool', async () => {
    cleanup();
    const user = userEvent.setup();
    render(<App />);
    await user.click(nav(en['nav.tasks']));
    await user.click(screen.getAllByRole('button', { name: en['task.create'] })[0]!);
    const form = await screen.findByRole('form', { name: en['task.create'] });
    const systems = () => within(form).queryAllByTestId('task-form-system');
    await waitFor(() => expect(systems().length).toBe(3));
    expect(systems().map((b) => b.querySelector('strong')?.textContent)).toEqual([
      'Inventory',
      'Shop A (homeware)',
      'Shop B (coffee gear)',
    ]);
    const shopA = systems()[1]!;
    await user.click(within(shopA).getAllByRole('checkbox')[0]!);
    // Its tools, no conversation needed: the reads, then the writes, all ticked at first.
    await waitFor(() => expect(within(shopA).getByRole('group', { name: en['task.reads'] })).toBeDefined());
    const names = (group: string) =>
      within(within(shopA).getByRole('group', { name: group }))
        .getAllByRole('checkbox')
        .map((c) => c.parentElement?.textContent);
    expect(names(en['task.reads'])).toEqual(expect.arrayContaining(['get_product', 'list_products']));
    expect(names(en['task.writeTools'])).toEqual(
      expect.arrayContaining(['update_product', 'update_product_content']),
    );
    expect(names(en['task.writeTools'])).not.toContain('get_product');
    // Keep get_product and update_product_content only.
    for (const box of within(shopA).getAllByRole('checkbox').slice(1)) {
      const name = box.parentElement?.textContent ?? '';
      if (
        box.closest('.tool-choice') &&
        (box as HTMLInputElement).checked !== ['get_product', 'update_product_content'].includes(name)
      )
        await user.click(box);
    }
    // The write's rule: product 13 only, and of its fields the description only.
    const rule = within(shopA).getByTestId('rule-update_product_content');
    expect(within(shopA).queryByTestId('rule-update_product')).toBeNull(); // not chosen: no rule
    await user.type(
      within(rule).getByLabelText(en['task.rule.keyValues'].replace('{field}', 'product_id')),
      '13',
    );
    await user.click(
      within(within(rule).getByRole('group', { name: en['task.rule.fields'] })).getByLabelText('title'),
    );
    await user.type(within(form).getByLabelText(en['task.title']), 'Formed by system');
    await user.click(within(form).getAllByRole('button', { name: en['task.create'] }).at(-1)!);
    await waitFor(() =>
      expect(Object.values(useTasks.getState().tasks).some((x) => x.title === 'Formed by system')).toBe(true),
    );
    const task = Object.values(useTasks.getState().tasks).find((x) => x.title === 'Formed by system')!;
    expect(task.boundary.authorizations).toEqual([
      { authorization_ref: 'auth-shop-a', tools: ['get_product', 'update_product_content'] },
    ]);
    expect(task.boundary.constraints).toHaveLength(1);
    expect(task.boundary.constraints[0]).toMatchObject({
      tool: 'update_product_content',
      schema: {
        properties: { product_id: { enum: [13] } },
        propertyNames: { enum: ['product_id', 'description'] },
      },
    });
  });
});
