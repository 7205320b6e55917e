/**
 * The conversation scenarios (./scenarios/conversation.ts: 1, 2, 10, 12) once more, against the
 * strict provider emulator instead of the scripted model: the desk set to the DeepSeek preset,
 * the emulator in DeepSeek thinking mode with parallel calls interleaved by index and names
 * repeated per chunk. Same scenario bodies; afterwards the emulator must have refused nothing —
 * every tool-call id came back as issued, every reasoning of a tool-call turn was passed back,
 * across the host's SIGKILL and restart in scenario 12 — and reasoning shows as "Thinking".
 */
import { expect, test } from '@playwright/test';
import { useChromiumApp } from './support/suite.js';
import { conversationSuite } from './scenarios/conversation.js';

const app = useChromiumApp(conversationSuite, {
  provider: { preset: 'deepseek', modes: ['deepseek-thinking', 'parallel-interleaved', 'names-repeated'] },
});
for (const s of conversationSuite.scenarios) test(`strict provider: ${s.title}`, () => s.run(app()));

test('strict provider: the emulator refused nothing; reasoning went back and shows collapsed', async () => {
  const { stack, page } = app();
  const provider = stack.provider;
  if (!provider) throw new Error('the stack runs the scripted model');
  expect(provider.refusals().map((r) => `${r.refusedBy}: ${r.seq}`)).toEqual([]);
  const requests = provider.requests();
  expect(requests.length).toBeGreaterThan(10);
  // Every request after a tool call carried the provider's own ids and the reasoning of that turn.
  const issued = new Set(provider.issuedCalls().map((c) => c.id));
  for (const r of requests)
    for (const m of r.messages)
      for (const c of m.tool_calls ?? []) {
        expect(issued.has(c.id)).toBe(true);
        expect(typeof (m as { reasoning_content?: unknown }).reasoning_content).toBe('string');
      }
  expect(requests.every((r) => r.key === 'expected')).toBe(true);
  // The conversation shows the model's reasoning collapsed under "Thinking".
  const thinking = page.getByTestId('thinking').first();
  await expect(thinking).toBeVisible();
  await expect(thinking.locator('summary')).toHaveText('Thinking');
  await expect(page.getByTestId('thinking-text').first()).toBeHidden();
});
