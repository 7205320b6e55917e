// The task timeline in Chinese: lane labels, each event's words, the tooltips and the figure's
// accessible description are all Chinese; only data (tool names, invocation ids, reason codes)
// stays as it came. The entries are built by the main process's own timeline builder
// (src-main/handlers/timeline.ts) from Hub audit entries, so the label shapes are the real ones.
// @vitest-environment jsdom
import { cleanup, render, screen, within } from '@testing-library/react';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import type { AuditEntry } from '../../src-shared/hub-api.js';
import { timelineFromAudit, timelineFromReceipts } from '../../src-main/handlers/timeline.js';
import { TaskTimeline } from '../../src-renderer/src/components/TaskTimeline.js';
import { stateLabel, translator } from '../../src-renderer/src/i18n/index.js';
import { timelineText } from '../../src-renderer/src/logic/timeline-text.js';
import { useApp } from '../../src-renderer/src/store/app.js';

afterEach(() => {
  cleanup();
  useApp.setState({ lang: 'en' });
});

let seq = 0;
const audit = (kind: string, to_state: string | null, over: Partial<AuditEntry> = {}): AuditEntry => {
  seq += 1;
  return {
    seq,
    at: new Date(Date.UTC(2026, 0, 1, 9, 0, seq)).toISOString(),
    actor: 'client:desk',
    kind,
    invocation_id: null,
    task_id: 'task_1',
    from_state: null,
    to_state,
    detail: {},
    ...over,
  };
};

const ENTRIES = timelineFromAudit([
  audit('task.created', 'active'),
  audit('invocation.created', 'dispatching', {
    invocation_id: 'inv_write_1',
    detail: { tool: 'update_product' },
  }),
  audit('invocation.state', 'succeeded', { invocation_id: 'inv_write_1' }),
  audit('invocation.created', 'awaiting_approval', {
    invocation_id: 'inv_appr_1',
    detail: { tool: 'update_product' },
  }),
  audit('approval.decided', 'approved', { invocation_id: 'inv_appr_1' }),
  audit('task.paused', 'paused'),
  audit('invocation.created', 'not_dispatched', {
    invocation_id: 'inv_refused_1',
    detail: { tool: 'update_product', reason_code: 'task_paused' },
  }),
  audit('task.active', 'active'),
  audit('invocation.state', 'unknown', { invocation_id: 'inv_write_1' }),
  audit('task.cancelled', 'cancelled'),
]);

/** Everything a person or a screen reader gets from the figure: text, tooltips, aria labels. */
function allWords(root: HTMLElement): string {
  const labels = [...root.querySelectorAll('[aria-label]')].map((e) => e.getAttribute('aria-label') ?? '');
  return [root.textContent ?? '', ...labels].join('\n');
}

describe('task timeline in Chinese', () => {
  it('draws Chinese lane labels, event words, tooltips and description', () => {
    expect(ENTRIES.map((e) => e.kind)).toEqual([
      'control',
      'permit',
      'dispatch',
      'outcome',
      'approval',
      'approval',
      'control',
      'refusal',
      'control',
      'outcome',
      'control',
    ]);
    useApp.setState({ lang: 'zh' });
    const { container } = render(<TaskTimeline entries={ENTRIES} />);

    const svg = screen.getByTestId('timeline-svg');
    const laneLabels = [...svg.querySelectorAll('text.lane-label')].map((n) => n.textContent);
    expect(laneLabels).toEqual(['任务', '审批', '许可', '派发', '结果', '拒绝']);
    expect(svg.getAttribute('aria-label')).toMatch(
      /^此任务的时间线：从 .+ 到 .+ 共 11 个事件，分为以下泳道：任务、审批、许可、派发、结果、拒绝。$/,
    );

    const list = within(container).getByRole('list', { name: '时间线事件' });
    const items = within(list)
      .getAllByRole('listitem')
      .map((li) => li.textContent ?? '');
    const words = items.map((s) => s.split(' · ').slice(1, 3).join(' · '));
    expect(words).toEqual([
      '任务 · 任务已创建',
      '许可 · 已授予许可',
      '派发 · 请求已发送',
      '结果 · 已完成',
      '审批 · 等待审批',
      '审批 · 审批：已批准',
      '任务 · 任务已暂停',
      '拒绝 · 未派发（task_paused）',
      '任务 · 任务已继续',
      '结果 · 结果待核查',
      '任务 · 任务已取消',
    ]);

    const tooltips = [...svg.querySelectorAll('circle > title')].map((n) => n.textContent ?? '');
    expect(tooltips).toHaveLength(ENTRIES.length);
    expect(tooltips[1]).toContain('许可 · 已授予许可 · update_product · inv_write_1');
    expect(tooltips[7]).toContain('未派发（task_paused）');

    // Apart from data (tool, ids, reason code) and the times, no English word is left anywhere.
    const rest = allWords(container)
      .replace(/update_product|inv_[a-z]+_1|task_paused/g, '')
      .replace(/\b(AM|PM)\b/g, '');
    expect(rest.match(/[A-Za-z]{2,}/g) ?? []).toEqual([]);
  });

  it('in English says what the main process wrote ("Task active" reads "Task continued")', () => {
    const t = translator('en');
    const expected = ENTRIES.map((e) => (e.label === 'Task active' ? 'Task continued' : e.label));
    expect(ENTRIES.map((e) => timelineText(e, t, (s) => stateLabel(s, 'en')))).toEqual(expected);
    const remote = timelineFromReceipts([], {
      created_at: '2026-01-01T09:00:00.000Z',
      paused_at: '2026-01-01T09:01:00.000Z',
      cancelled_at: null,
    } as never);
    expect(remote.map((e) => timelineText(e, t, (s) => stateLabel(s, 'en')))).toEqual([
      'Task created',
      'Task paused',
    ]);
    expect(remote.map((e) => timelineText(e, translator('zh'), (s) => stateLabel(s, 'zh')))).toEqual([
      '任务已创建',
      '任务已暂停',
    ]);
  });

  it('a call whose request never left draws its permit and the refusal, never "Request sent"', () => {
    const t = translator('en');
    const entries = timelineFromAudit([
      audit('invocation.created', 'dispatching', {
        invocation_id: 'inv_dns_1',
        detail: { tool: 'update_product' },
      }),
      audit('invocation.dispatched', 'not_dispatched', {
        invocation_id: 'inv_dns_1',
        from_state: 'dispatching',
        detail: { reason_code: 'not_sent_dns_failed', request_sent: false },
      }),
    ]);
    expect(entries.map((e) => timelineText(e, t, (s) => stateLabel(s, 'en')))).toEqual([
      'Permit granted',
      'Not dispatched (not_sent_dns_failed)',
    ]);
    // An approved call: the first resume never left (back to approved), the second was sent.
    const resumed = timelineFromAudit([
      audit('invocation.resumed', 'dispatching', {
        invocation_id: 'inv_appr_2',
        from_state: 'approved',
        detail: { tool: 'update_product' },
      }),
      audit('invocation.dispatched', 'approved', {
        invocation_id: 'inv_appr_2',
        from_state: 'dispatching',
        detail: { reason_code: 'not_sent_connect_refused', request_sent: false },
      }),
      audit('invocation.resumed', 'dispatching', { invocation_id: 'inv_appr_2', from_state: 'approved' }),
      audit('invocation.dispatched', 'succeeded', { invocation_id: 'inv_appr_2', from_state: 'dispatching' }),
    ]);
    expect(resumed.map((e) => timelineText(e, t, (s) => stateLabel(s, 'en')))).toEqual([
      'Permit granted',
      'Not dispatched (not_sent_connect_refused)',
      'Permit granted',
      'Request sent',
      'Completed',
    ]);
  });

  it('shows the label as it came when a structured field holds a value not known here, rather than dropping it', () => {
    const t = translator('zh');
    const odd = {
      at: '2026-01-01T09:00:00.000Z',
      kind: 'control' as const,
      invocation_id: null,
      tool: null,
      state: null,
      task_action: 'renamed',
      reason_code: null,
      label: 'Task renamed to X',
    };
    expect(timelineText(odd, t, (s) => stateLabel(s, 'zh'))).toBe('Task renamed to X');
  });
});
