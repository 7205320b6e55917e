// A reply's Markdown is rendered (bold, lists, tables), and nothing in it can inject HTML: raw tags
// stay text, script and event handlers never reach the page, javascript: links are dropped.
// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { AssistantText } from '../../src-renderer/src/components/AssistantText.js';

afterEach(cleanup);

const reply = (text: string) => ({
  kind: 'assistant_text' as const,
  id: 'a1',
  at: '2026-01-01T00:00:00Z',
  text,
  streaming: false,
});

describe('assistant replies as Markdown', () => {
  it('renders emphasis, lists and tables instead of showing the marks', () => {
    render(
      <AssistantText
        item={reply(
          '**Shop A** has:\n\n- 12 boards\n- 3 mugs\n\n| sku | stock |\n| --- | --- |\n| A-1 | 12 |',
        )}
      />,
    );
    const md = screen.getByTestId('markdown');
    expect(md.querySelector('strong')?.textContent).toBe('Shop A');
    expect(md.textContent).not.toContain('**');
    expect([...md.querySelectorAll('li')].map((li) => li.textContent)).toEqual(['12 boards', '3 mugs']);
    expect(md.querySelector('table td')?.textContent).toBe('A-1');
  });

  it('never renders raw HTML, scripts, handlers or javascript: links', () => {
    render(
      <AssistantText
        item={reply(
          'Hi <img src=x onerror="alert(1)"> <script>alert(2)</script> [click](javascript:alert(3)) <b>bold</b>',
        )}
      />,
    );
    const md = screen.getByTestId('markdown');
    expect(md.querySelector('img, script, b')).toBeNull();
    expect(md.innerHTML).not.toContain('onerror');
    const link = md.querySelector('a');
    expect(link?.getAttribute('href') ?? '').not.toMatch(/^javascript:/i);
  });
});
