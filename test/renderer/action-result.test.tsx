// The result of an inspect/resume: the receipt's state when there is one; without a receipt, the
// state the feedback establishes (invocation_not_found -> Unverified) and its next action, never "—"
// for an authoritative answer and never an invented success.
// @vitest-environment jsdom
import { cleanup, render, screen } from '@testing-library/react';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { InvocationActionView } from '../../src-shared/ipc/views.js';
import { ActionResult } from '../../src-renderer/src/components/ToolCallCard.js';
import { actionState, nextActionText } from '../../src-renderer/src/logic/action-state.js';
import { useApp } from '../../src-renderer/src/store/app.js';
import { en } from '../../src-renderer/src/i18n/en.js';

afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
});

const notFound: InvocationActionView = {
  action: 'resume',
  invocation_id: 'inv_000000000001',
  journal_state: 'ready',
  resume_dispatched: true,
  receipt: null,
  feedback: {
    category: 'invocation_outcome_unknown',
    code: 'invocation_not_found',
    message:
      'The Hub has no record of this invocation. This does not prove the business action never ran; inspect the original evidence.',
    next_action: 'inspect_original',
    detail: null,
  },
  unsaved_records: 0,
};

describe('action result state', () => {
  it('shows Unverified and "inspect original" for the authoritative invocation_not_found (no receipt)', () => {
    render(<ActionResult result={notFound} />);
    const status = screen.getByRole('status');
    expect(screen.getByTestId('action-state').textContent).toBe('Unverified');
    expect(screen.getByTestId('feedback').dataset.code).toBe('invocation_not_found');
    expect(status.textContent).toContain(en['code.invocation_not_found'].slice(0, 20));
    expect(screen.getByTestId('action-next').textContent).toBe('Next: inspect original');
    expect(status.textContent).not.toContain('—');
  });

  it('shows the state in Chinese too', () => {
    useApp.setState({ lang: 'zh' });
    render(<ActionResult result={notFound} />);
    expect(screen.getByTestId('action-state').textContent).toBe('无法核实');
  });

  it('derives nothing when the feedback concludes nothing (e.g. the Hub was unreachable)', () => {
    const offline: InvocationActionView = {
      ...notFound,
      resume_dispatched: false,
      feedback: {
        category: 'hub_unavailable',
        code: 'hub_unavailable',
        message: 'The Hub could not be reached.',
        next_action: 'wait',
        detail: null,
      },
    };
    render(<ActionResult result={offline} />);
    expect(screen.getByTestId('action-state').textContent).toBe('—');
    expect(actionState(offline)).toEqual({ state: null, source: 'none' });
  });

  it('prefers the receipt, and a sent call without an answer is unknown, never success', () => {
    expect(
      actionState({
        receipt: { state: 'succeeded' } as InvocationActionView['receipt'],
        feedback: notFound.feedback,
      }),
    ).toEqual({ state: 'succeeded', source: 'receipt' });
    expect(
      actionState({
        receipt: null,
        feedback: {
          category: 'invocation_outcome_unknown',
          code: 'hub_timeout',
          message: 'No answer.',
          next_action: 'inspect_original',
          detail: null,
        },
      }),
    ).toEqual({ state: 'unknown', source: 'feedback' });
    expect(nextActionText('restore_invocations')).toBe('restore invocations');
  });
});
