// Message attachments in the window, in browser mode against a real desk (embedded Hub, demo
// systems, runtime on SQLite files) and a real browser host over a WebSocket: files chosen in the
// composer are checked before anything is sent (type, length, count, NUL, request size) with a
// visible reason, shown as removable chips, sent with the next message and cleared after it was
// accepted, kept (with the error) when the send is refused; a sent message shows its attachments
// as chips whose preview fetches the text with getAttachment and shows it as text (never HTML) in
// a dialog that Escape closes. English and Chinese.
// @vitest-environment jsdom
import { act, cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react';
import { userEvent } from '@testing-library/user-event';
import React from 'react';
import WebSocket from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startScriptedModel, type ScriptedModel } from '../../demo/scripted-model/index.js';
import { startBrowserHost, type BrowserHost } from '../../src-main/browser-host/index.js';
import { App } from '../../src-renderer/src/components/App.js';
import { startRenderer } from '../../src-renderer/src/host-link.js';
import { en } from '../../src-renderer/src/i18n/en.js';
import { translator } from '../../src-renderer/src/i18n/index.js';
import { zh } from '../../src-renderer/src/i18n/zh.js';
import { refusalText, sizeText } from '../../src-renderer/src/logic/attachment-text.js';
import {
  buildSendInput,
  checkRequest,
  checkText,
  mediaTypeOf,
  requestBytes,
  type PendingAttachment,
} from '../../src-renderer/src/logic/attachments.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { useComposer } from '../../src-renderer/src/store/composer.js';
import { useSessions } from '../../src-renderer/src/store/sessions.js';
import { createWsTransport } from '../../src-renderer/src/transport/ws-client.js';
import { CALLS, MAX_PAYLOAD_BYTES } from '../../src-shared/ipc/contract.js';
import { MAX_ATTACHMENT_CHARS, MAX_ATTACHMENTS, type ConversationItem } from '../../src-shared/ipc/views.js';
import { startTestDesk, type TestDesk } from '../app/support.js';

/** The model key the desk runs with: an attachment containing it is refused by the main process. */
const MODEL_KEY = 'sk-attachment-test-key-0123456789';
const XSS = '<img src=x onerror=alert(1)>';

let model: ScriptedModel;
let desk: TestDesk;
let host: BrowserHost;
let stop: () => void = () => {};
let sessionId = '';

beforeAll(async () => {
  model = await startScriptedModel({
    script: [{ match: { userIncludes: 'read' }, reply: { text: 'Read.' } }],
  });
  desk = await startTestDesk({
    env: { BAILING_MODEL_BASE_URL: model.url, BAILING_MODEL: 'scripted', BAILING_MODEL_API_KEY: MODEL_KEY },
  });
  await waitFor(() => expect(desk.root.gateway.connection().state).toBe('connected'), { timeout: 10_000 });
  sessionId = desk.root.defaultSessionId ?? '';
  host = await startBrowserHost({
    router: desk.root.router,
    bus: desk.root.bus,
    staticDir: desk.staticDir,
  });
  const origin = host.origin;
  const cookie = host.sessionCookie;
  class OriginWebSocket extends WebSocket {
    constructor(url: string) {
      super(url, { headers: { origin, cookie } });
    }
  }
  const transport = createWsTransport({
    url: `ws://127.0.0.1:${host.port}/ws`,
    WebSocketImpl: OriginWebSocket as never,
  });
  const unwire = await startRenderer(transport);
  stop = () => {
    unwire();
    transport.close();
  };
}, 120_000);
afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
  useComposer.setState({ pending: {} });
});
afterAll(async () => {
  stop();
  await host?.close();
  await desk?.cleanup();
  await model?.close();
}, 120_000);

const file = (name: string, text: string, type = '') => new File([text], name, { type });
/** A user who picks "All files" in the dialog: the accept filter does not hide a file. */
const setupUser = () => userEvent.setup({ applyAccept: false });

async function openApp() {
  render(<App />);
  expect(await screen.findByTestId('conversation-title', {}, { timeout: 10_000 })).toHaveProperty(
    'textContent',
    'Demo: shops and inventory',
  );
  await waitFor(() => expect(useSessions.getState().conversations[sessionId]?.loaded).toBe(true));
  await waitFor(
    () =>
      expect(useSessions.getState().sessions.find((s) => s.session_id === sessionId)?.turn_running).toBe(
        false,
      ),
    { timeout: 15_000 },
  );
}

const fireChange = (el: HTMLTextAreaElement, value: string) => fireEvent.change(el, { target: { value } });
const input = () => screen.getByTestId('attach-input') as HTMLInputElement;
const chips = () => screen.queryAllByTestId('pending-chip').map((c) => c.textContent);
const refusals = () =>
  screen
    .queryAllByTestId('attachment-refusals')
    .flatMap((ul) => [...ul.querySelectorAll('li')].map((li) => li.textContent));

describe('the composer: choosing files', () => {
  it('the Attach button is a labelled, keyboard-operable button that opens the picker for the text types', async () => {
    const user = setupUser();
    await openApp();
    const button = screen.getByRole('button', { name: 'Attach file' });
    expect(input().accept).toBe(
      '.txt,.csv,.md,.markdown,.json,text/plain,text/csv,text/markdown,application/json',
    );
    expect(input().multiple).toBe(true);
    expect(screen.getByLabelText(en['attach.input'])).toBe(input());
    let opened = 0;
    input().addEventListener('click', () => (opened += 1));
    button.focus();
    await user.keyboard('{Enter}');
    await user.keyboard(' ');
    expect(opened).toBe(2);
  });

  it('shows chosen files as removable chips with their size; Remove takes one away', async () => {
    const user = setupUser();
    await openApp();
    await user.upload(input(), [
      file('notes.txt', 'hello'),
      file('prices.csv', 'sku,price\nA,1\n'),
      file('readme.md', '# Title'),
    ]);
    await waitFor(() => expect(chips()).toHaveLength(3));
    const list = screen.getByRole('list', { name: en['attach.pending'] });
    expect(
      within(list)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual(['notes.txt 5 bytes×', 'prices.csv 14 bytes×', 'readme.md 7 bytes×']);
    await user.click(screen.getByRole('button', { name: 'Remove attachment prices.csv' }));
    expect(chips()).toEqual(['notes.txt 5 bytes×', 'readme.md 7 bytes×']);
    expect(refusals()).toEqual([]);
  });

  it('refuses, with a visible reason each, a file of another type, one too long, one with NUL, and a fourth file', async () => {
    const user = setupUser();
    await openApp();
    const long = 'x'.repeat(MAX_ATTACHMENT_CHARS + 1);
    await user.upload(input(), [
      file('report.pdf', '%PDF-1.7', 'application/pdf'),
      file('Makefile', 'all:', 'text/plain'),
      file('big.txt', long, 'text/plain'),
      file('binary.txt', 'ab\u0000cd', 'text/plain'),
      file('exact.txt', 'y'.repeat(MAX_ATTACHMENT_CHARS)),
    ]);
    await waitFor(() => expect(refusals()).toHaveLength(4));
    const alert = screen.getByTestId('attachment-refusals');
    expect(alert.getAttribute('role')).toBe('alert');
    expect(refusals()).toEqual([
      'report.pdf cannot be attached: only text files ending in .txt, .csv, .md or .json can.',
      'Makefile cannot be attached: only text files ending in .txt, .csv, .md or .json can.',
      `big.txt cannot be attached: it is longer than ${MAX_ATTACHMENT_CHARS} characters.`,
      'binary.txt cannot be attached: it contains NUL characters, so it is not a text file.',
    ]);
    // The file of exactly the limit is attached.
    expect(chips()).toEqual(['exact.txt 58.6 KB×']);

    await user.upload(input(), [file('a.json', '{}'), file('b.json', '[]'), file('c.json', '1')]);
    await waitFor(() =>
      expect(refusals()).toEqual([
        `c.json was not attached: a message carries at most ${MAX_ATTACHMENTS} attachments.`,
      ]),
    );
    expect(chips()).toHaveLength(MAX_ATTACHMENTS);
  });

  it('refuses a file that would make the request larger than the transports accept, naming the sizes', async () => {
    const user = setupUser();
    await openApp();
    // A control character (not NUL) takes 6 bytes of JSON (\u0001): MAX_ATTACHMENTS such files of
    // the longest length are more than the transports take in one request.
    const dense = '\u0001'.repeat(MAX_ATTACHMENT_CHARS);
    const perFile = JSON.stringify(dense).length;
    const fit = Math.floor(MAX_PAYLOAD_BYTES / perFile);
    expect(fit).toBeLessThan(MAX_ATTACHMENTS);
    const files = Array.from({ length: fit + 1 }, (_, i) => file(`dense-${i}.txt`, dense));
    await user.upload(input(), files);
    await waitFor(() => expect(refusals()).toHaveLength(1));
    expect(chips()).toHaveLength(fit);
    const max = sizeText(MAX_PAYLOAD_BYTES, translator('en'));
    expect(refusals()[0]).toMatch(
      new RegExp(
        `^dense-${fit}\\.txt was not attached: the message with its attachments would be [\\d.]+ KB, more than the ${max} that can be sent at once\\.$`,
      ),
    );
  });

  it('refuses to send a message whose text makes the request too large, and keeps everything', async () => {
    const user = setupUser();
    await openApp();
    const dense = '\u0001'.repeat(MAX_ATTACHMENT_CHARS);
    const perFile = JSON.stringify(dense).length;
    const fit = Math.floor(MAX_PAYLOAD_BYTES / perFile);
    await user.upload(
      input(),
      Array.from({ length: fit }, (_, i) => file(`dense-${i}.txt`, dense)),
    );
    await waitFor(() => expect(chips()).toHaveLength(fit));
    // One more file leaves about 10 KB of the request for the message's words; 10,000 quotes
    // (2 bytes of JSON each) do not fit.
    const pendingNow = () => useComposer.getState().pending[sessionId] ?? [];
    const room = MAX_PAYLOAD_BYTES - requestBytes(buildSendInput(sessionId, '', pendingNow()));
    await user.upload(input(), [file('filler.txt', '\u0001'.repeat(Math.floor((room - 10_000) / 6)))]);
    await waitFor(() => expect(chips()).toHaveLength(fit + 1));
    const words = '"'.repeat(10_000);
    expect(checkRequest(sessionId, words, pendingNow())).not.toBeNull();
    fireChange(screen.getByLabelText('Message') as HTMLTextAreaElement, words);
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(refusals()).toHaveLength(1));
    expect(refusals()[0]).toMatch(/^Not sent: the message with its attachments is/);
    expect(chips()).toHaveLength(fit + 1);
    expect(screen.getByLabelText('Message')).toHaveProperty('value', words);
  });
});

describe('sending a message with attachments (needs the main side: sendMessage attachments, getAttachment)', () => {
  it('sends the files with the message, clears the chips, and the message shows them; a chip previews the text as text', async () => {
    const user = setupUser();
    await openApp();
    const csv = 'sku,price\nA-1,10\n';
    await user.upload(input(), [file('evil.txt', XSS), file('prices.csv', csv)]);
    await waitFor(() => expect(chips()).toHaveLength(2));
    await user.type(screen.getByLabelText('Message'), 'please read these');
    await user.click(screen.getByRole('button', { name: 'Send' }));

    // The message in the conversation carries both attachments, as the main process saved them.
    const sent = await waitFor(
      () => {
        const item = useSessions
          .getState()
          .conversations[sessionId]?.items.find(
            (i) => i.kind === 'user_message' && i.text === 'please read these',
          );
        if (item?.kind !== 'user_message' || !item.attachments) throw new Error('not yet');
        return item;
      },
      { timeout: 10_000 },
    );
    expect(sent.attachments?.map((a) => [a.name, a.media_type, a.size_bytes])).toEqual([
      ['evil.txt', 'text/plain', XSS.length],
      ['prices.csv', 'text/csv', csv.length],
    ]);
    expect(chips()).toEqual([]);
    expect(screen.getByLabelText('Message')).toHaveProperty('value', '');

    const shown = await screen.findAllByTestId('attachment-chip');
    const evilChip = shown.find((c) => c.textContent?.startsWith('evil.txt'));
    if (!evilChip) throw new Error('no chip for evil.txt');
    expect(evilChip.textContent).toBe(`evil.txt · text/plain · ${XSS.length} bytes`);
    expect(shown.find((c) => c.textContent?.startsWith('prices.csv'))?.textContent).toBe(
      `prices.csv · text/csv · ${csv.length} bytes`,
    );

    await user.click(evilChip);
    const dialog = await screen.findByRole('dialog', { name: 'Attachment evil.txt' });
    const text = await within(dialog).findByTestId('attachment-text');
    expect(text.tagName).toBe('PRE');
    expect(text.textContent).toBe(XSS);
    expect(dialog.querySelector('img')).toBeNull();
    expect(document.querySelector('img')).toBeNull();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Close' }));
    // Focus stays in the dialog: Tab goes to the text (scrollable by keyboard) and back to Close.
    await user.tab();
    expect(document.activeElement).toBe(text);
    await user.tab();
    expect(document.activeElement).toBe(within(dialog).getByRole('button', { name: 'Close' }));
    await user.tab({ shift: true });
    expect(document.activeElement).toBe(text);

    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
    expect(document.activeElement).toBe(evilChip);

    // The other chip, and Close.
    const priceChip = screen
      .getAllByTestId('attachment-chip')
      .find((c) => c.textContent?.startsWith('prices.csv'));
    if (!priceChip) throw new Error('no chip for prices.csv');
    await user.click(priceChip);
    const second = await screen.findByRole('dialog', { name: 'Attachment prices.csv' });
    expect((await within(second).findByTestId('attachment-text')).textContent).toBe(csv);
    await user.click(within(second).getByRole('button', { name: 'Close' }));
    expect(screen.queryByRole('dialog')).toBeNull();
  });

  it('a send the main process refuses keeps the attachments and the text, and shows the error (en and zh)', async () => {
    const user = setupUser();
    await openApp();
    const config = JSON.stringify({ key: MODEL_KEY });
    await user.upload(input(), [file('config.json', config), file('fine.md', '# fine')]);
    await waitFor(() => expect(chips()).toHaveLength(2));
    await user.type(screen.getByLabelText('Message'), 'read my config');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    // Worded from the code only: which attachment it was stays in the main side's message (the log).
    const alert = await screen.findByText(
      `Error: ${en['apiError.attachment_contains_secret']}`,
      {},
      { timeout: 10_000 },
    );
    expect(alert.getAttribute('role')).toBe('alert');
    expect(chips()).toEqual([`config.json ${config.length} bytes×`, 'fine.md 6 bytes×']);
    expect(screen.getByLabelText('Message')).toHaveProperty('value', 'read my config');
    expect(document.body.textContent).not.toContain(MODEL_KEY);
    // Nothing of the refused message reached the conversation.
    expect(
      useSessions
        .getState()
        .conversations[sessionId]?.items.some(
          (i) => i.kind === 'user_message' && i.text === 'read my config',
        ),
    ).toBe(false);

    // The same refusal worded in Chinese, from the same code.
    act(() => useApp.getState().setLang('zh'));
    await user.click(screen.getByRole('button', { name: '发送' }));
    await screen.findByText(`错误：${zh['apiError.attachment_contains_secret']}`, {}, { timeout: 10_000 });
    expect(chips()).toHaveLength(2);
  });

  it('a preview that cannot be read says why, worded like other call errors (en and zh)', async () => {
    const user = setupUser();
    await openApp();
    const item: ConversationItem = {
      kind: 'user_message',
      id: 'evt_attachment_test_missing',
      at: new Date().toISOString(),
      text: 'an older message',
      attachments: [
        { attachment_id: 'att_does_not_exist', name: 'gone.txt', media_type: 'text/plain', size_bytes: 2048 },
      ],
    };
    act(() => useSessions.getState().applyItem(sessionId, item));
    const chip = await screen.findByRole('button', { name: 'gone.txt · text/plain · 2 KB' });
    await user.click(chip);
    const dialog = await screen.findByRole('dialog', { name: 'Attachment gone.txt' });
    expect((await within(dialog).findByRole('alert')).textContent).toBe(
      'Error: No such attachment in this conversation.',
    );
    expect(within(dialog).queryByTestId('attachment-text')).toBeNull();
    act(() => useApp.getState().setLang('zh'));
    expect(within(dialog).getByRole('alert').textContent).toBe(
      `错误：${zh['apiError.attachment_not_found']}`,
    );
    expect(within(dialog).getByRole('heading').textContent).toBe('附件 gone.txt');
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).toBeNull();
  });
});

describe('in Chinese', () => {
  it('the composer and its refusals are worded in Chinese', async () => {
    const user = setupUser();
    await openApp();
    act(() => useApp.getState().setLang('zh'));
    expect(screen.getByRole('button', { name: zh['attach.button'] })).toBeTruthy();
    expect(screen.getByLabelText(zh['attach.input'])).toBe(input());
    await user.upload(input(), [file('笔记.txt', '你好'), file('图.png', 'x')]);
    await waitFor(() => expect(refusals()).toHaveLength(1));
    expect(chips()).toEqual(['笔记.txt 6 字节×']);
    expect(refusals()).toEqual(['无法附加 图.png：只能附加扩展名为 .txt、.csv、.md 或 .json 的文本文件。']);
    expect(screen.getByRole('list', { name: zh['attach.pending'] })).toBeTruthy();
    expect(screen.getByRole('button', { name: '移除附件 笔记.txt' })).toBeTruthy();
  });
});

describe('attachment rules (logic/attachments.ts)', () => {
  it('maps extensions to the allowed media types and refuses anything else (no guessing text/plain)', () => {
    expect(mediaTypeOf('a.txt')).toBe('text/plain');
    expect(mediaTypeOf('A.TXT')).toBe('text/plain');
    expect(mediaTypeOf('data.csv')).toBe('text/csv');
    expect(mediaTypeOf('notes.md')).toBe('text/markdown');
    expect(mediaTypeOf('notes.markdown')).toBe('text/markdown');
    expect(mediaTypeOf('x.json')).toBe('application/json');
    for (const name of ['report.pdf', 'Makefile', '.txt', 'trailing.', 'a.txt.exe', 'script.js', 'page.html'])
      expect(mediaTypeOf(name), name).toBeNull();
  });

  it('checks NUL and length in characters as the contract counts them', () => {
    expect(checkText('a', 'x'.repeat(MAX_ATTACHMENT_CHARS))).toBeNull();
    expect(checkText('a', 'x'.repeat(MAX_ATTACHMENT_CHARS + 1))).toEqual({ code: 'too_long', name: 'a' });
    expect(checkText('a', 'ok\u0000')).toEqual({ code: 'nul', name: 'a' });
    // What the renderer accepts, the contract accepts.
    const attachment = { name: 'a.txt', media_type: 'text/plain', text: 'x'.repeat(MAX_ATTACHMENT_CHARS) };
    expect(
      CALLS.sendMessage.input.safeParse({ session_id: 's', text: 't', attachments: [attachment] }).success,
    ).toBe(true);
  });

  it('builds the sendMessage request: attachments only when there are any, with name, media type and text', () => {
    const pending: PendingAttachment[] = [
      { key: 'k1', name: 'a.csv', media_type: 'text/csv', text: 'a,b\n', size_bytes: 4 },
      { key: 'k2', name: 'b.json', media_type: 'application/json', text: '{"x":1}', size_bytes: 7 },
    ];
    expect(buildSendInput('ses_1', 'hi', [])).toEqual({ session_id: 'ses_1', text: 'hi' });
    const input = buildSendInput('ses_1', 'hi', pending);
    expect(input).toEqual({
      session_id: 'ses_1',
      text: 'hi',
      attachments: [
        { name: 'a.csv', media_type: 'text/csv', text: 'a,b\n' },
        { name: 'b.json', media_type: 'application/json', text: '{"x":1}' },
      ],
    });
    expect(CALLS.sendMessage.input.safeParse(input).success).toBe(true);
    expect(requestBytes(input)).toBe(Buffer.byteLength(JSON.stringify(input), 'utf8'));
  });

  it('refuses a request one byte over MAX_PAYLOAD_BYTES and accepts one exactly at it', () => {
    const base = requestBytes(
      buildSendInput('ses_1', '', [
        { key: 'k', name: 'a.txt', media_type: 'text/plain', text: '', size_bytes: 0 },
      ]),
    );
    const at = (n: number): PendingAttachment[] => [
      { key: 'k', name: 'a.txt', media_type: 'text/plain', text: 'é'.repeat(n), size_bytes: 2 * n },
    ];
    // Each é is two bytes: fill the request to the limit with é and one more byte of message text.
    const room = MAX_PAYLOAD_BYTES - base;
    const half = Math.floor(room / 2);
    const text = room % 2 === 1 ? 'x' : '';
    expect(requestBytes(buildSendInput('ses_1', text, at(half)))).toBe(MAX_PAYLOAD_BYTES);
    expect(checkRequest('ses_1', text, at(half))).toBeNull();
    expect(checkRequest('ses_1', `${text}y`, at(half))).toEqual({
      code: 'payload',
      name: '',
      detail: MAX_PAYLOAD_BYTES + 1,
    });
  });

  it('words sizes and a refused send in both languages', () => {
    const t = translator('en');
    expect(sizeText(0, t)).toBe('0 bytes');
    expect(sizeText(1023, t)).toBe('1023 bytes');
    expect(sizeText(1024, t)).toBe('1 KB');
    expect(sizeText(1536, t)).toBe('1.5 KB');
    const maxKb = Number((MAX_PAYLOAD_BYTES / 1024).toFixed(1));
    expect(refusalText({ code: 'payload', name: '', detail: MAX_PAYLOAD_BYTES + 1024 }, t)).toBe(
      `Not sent: the message with its attachments is ${maxKb + 1} KB, more than the ${maxKb} KB that can be sent at once. Remove an attachment or shorten the message.`,
    );
    expect(
      refusalText({ code: 'payload', name: '', detail: MAX_PAYLOAD_BYTES + 1024 }, translator('zh')),
    ).toBe(
      `未发送：消息连同附件共 ${maxKb + 1} 千字节，超过一次可发送的 ${maxKb} 千字节。请移除附件或缩短消息。`,
    );
  });
});
