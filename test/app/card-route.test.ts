// One route for a card to the UI: a call card reaches the renderer only as `conversationItem`
// events built from the runtime's `tool.card` (the relay), and a reopened conversation rebuilds the
// very same item from the archive. A manual run's answer is that same item, not a second version
// of it (same time, same state, same Resume decision).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallResult } from '../../src-shared/ipc/contract.js';
import type { ConversationItem } from '../../src-shared/ipc/views.js';
import { hubConnected, startTestDesk, type TestDesk } from './support.js';

const ctx = { transport: 'browser' as const };
let desk: TestDesk;
const items: ConversationItem[] = [];

beforeAll(async () => {
  desk = await startTestDesk();
  await hubConnected(desk);
  desk.root.bus.subscribe((name, payload) => {
    if (name === 'conversationItem') items.push((payload as { item: ConversationItem }).item);
  });
}, 120_000);
afterAll(async () => {
  await desk?.cleanup();
}, 120_000);

describe('a call card takes one route', () => {
  it('the live events, the manual run’s answer and the reopened conversation show the same card', async () => {
    const sessionId = desk.root.defaultSessionId ?? '';
    const found = (await desk.root.router.call(
      'searchTools',
      { session_id: sessionId, query: 'product' },
      ctx,
    )) as CallResult<'searchTools'>;
    if (!found.ok) throw new Error(found.error.code);
    const read = found.value.tools.find((t) => t.effect === 'read' && t.tool === 'get_product');
    expect(read).toBeDefined();
    const run = (await desk.root.router.call(
      'runToolManually',
      { session_id: sessionId, function_name: read?.function_name ?? '', arguments: { product_id: 42 } },
      ctx,
    )) as CallResult<'runToolManually'>;
    if (!run.ok) throw new Error(run.error.code);
    const answered = run.value.item;
    expect(answered).toMatchObject({ kind: 'tool_call', state: 'succeeded' });

    // Every live version of this card carries the same time; the last one is the answer itself.
    const live = items.filter((i) => i.id === answered.id);
    const states = live.map((i) => (i.kind === 'tool_call' ? i.state : null));
    expect(states[0]).toBe('validating');
    expect(states).toContain('dispatching');
    expect(states.at(-1)).toBe('succeeded');
    expect(new Set(live.map((i) => i.at))).toEqual(new Set([answered.at]));
    expect(live.at(-1)).toEqual(answered);

    const conv = (await desk.root.router.call(
      'getConversation',
      { session_id: sessionId },
      ctx,
    )) as CallResult<'getConversation'>;
    if (!conv.ok) throw new Error(conv.error.code);
    const rebuilt = conv.value.items.find((i) => i.id === answered.id);
    expect(rebuilt).toEqual(answered);
  });
});
