/**
 * Settings: one MCP server's tools and how the Hub governs each (effect, risk, approval, rate limit,
 * timeout, idempotent, look-up tool, enabled), each value marked with where it comes from — the
 * operator's overlay, the server's annotations, or the Hub's default — and the overlay edited or
 * cleared per tool. An answer or refusal is shown in the tool's row.
 */
import React, { useState } from 'react';
import type { McpOverlayInput, McpToolItem } from '../../../src-shared/ipc/mcp.js';
import { useT } from '../i18n/use-t.js';
import type { Translate } from '../i18n/index.js';
import {
  annotationPairs,
  draftOf,
  NO_LOOKUP,
  overlayOf,
  valueOrigin,
  type OverlayDraft,
  type OverlayField,
  type OverlayProblemCode,
} from '../logic/mcp-overlay.js';
import { caught, message, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { hubUsable, useApp } from '../store/app.js';
import { useMcpServers } from '../store/mcp-servers.js';

function Cell({
  tool,
  field,
  children,
}: {
  tool: McpToolItem;
  field: OverlayField;
  children: React.ReactNode;
}): React.JSX.Element {
  const t = useT();
  const origin = valueOrigin(tool, field);
  return (
    <td data-field={field} data-origin={origin}>
      {children} <span className={`origin origin-${origin}`}>({t(`mcp.origin.${origin}`)})</span>
    </td>
  );
}

const yesNo = (v: boolean, t: Translate) => t(v ? 'mcp.value.yes' : 'mcp.value.no');

function ToolRow({ systemId, tool, tools }: { systemId: string; tool: McpToolItem; tools: McpToolItem[] }) {
  const t = useT();
  const usable = useApp(hubUsable);
  const [editing, setEditing] = useState(false);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ ok: boolean; shown: ShownError } | null>(null);
  const g = tool.governed;
  const act = (p: Promise<void>, done: ShownError) => {
    setBusy(true);
    setAnswer(null);
    p.then(
      () => {
        setAnswer({ ok: true, shown: done });
        setEditing(false);
      },
      (err: unknown) => setAnswer({ ok: false, shown: caught(err) }),
    ).finally(() => setBusy(false));
  };
  const pairs = annotationPairs(tool);
  return (
    <>
      <tr data-testid="mcp-tool-row" data-tool={tool.tool}>
        <th scope="row">
          <code>{tool.tool}</code>
          <div className="muted small">
            {pairs.length > 0
              ? t('mcp.tools.annotations', { list: pairs.join(', ') })
              : t('mcp.tools.noAnnotations')}
          </div>
        </th>
        <Cell tool={tool} field="effect">
          {t(`effect.${g.effect}`)}
        </Cell>
        <Cell tool={tool} field="risk_level">
          {t(`mcp.risk.${g.risk_level}`)}
        </Cell>
        <Cell tool={tool} field="approval">
          {t(g.approval_required ? 'mcp.value.required' : 'mcp.value.notRequired')}
          {g.approval_rules > 0 && ` · ${t('mcp.value.rules', { count: g.approval_rules })}`}
        </Cell>
        <Cell tool={tool} field="rate_limit">
          {g.rate_limit
            ? t('mcp.value.rate', {
                count: g.rate_limit.count,
                window: t(`mcp.window.${g.rate_limit.window}`),
              })
            : t('mcp.value.none')}
        </Cell>
        <Cell tool={tool} field="timeout_ms">
          {t('mcp.value.seconds', { seconds: g.timeout_ms / 1000 })}
        </Cell>
        <Cell tool={tool} field="idempotent">
          {yesNo(g.idempotent, t)}
        </Cell>
        <Cell tool={tool} field="lookup_tool">
          {g.lookup_tool ? <code>{g.lookup_tool}</code> : t('mcp.value.none')}
        </Cell>
        <Cell tool={tool} field="enabled">
          {yesNo(g.enabled, t)}
        </Cell>
        <td>
          <button
            type="button"
            onClick={() => setEditing(!editing)}
            disabled={busy || !usable}
            aria-expanded={editing}
            aria-label={t('mcp.tools.edit', { tool: tool.tool })}
          >
            ✎
          </button>
          {tool.overlay && (
            <button
              type="button"
              disabled={busy || !usable}
              aria-label={t('mcp.tools.clear', { tool: tool.tool })}
              onClick={() =>
                act(
                  useMcpServers.getState().clearOverlay(systemId, tool.tool),
                  message('mcp.overlay.cleared', { tool: tool.tool }),
                )
              }
            >
              ⌫
            </button>
          )}
          {answer && (
            <span
              role={answer.ok ? 'status' : 'alert'}
              className={answer.ok ? 'state-ok' : 'state-bad'}
              data-testid="mcp-tool-answer"
            >
              {shownErrorText(answer.shown, t)}
            </span>
          )}
        </td>
      </tr>
      {editing && (
        <tr>
          <td colSpan={10}>
            <OverlayForm
              tool={tool}
              tools={tools}
              busy={busy}
              onCancel={() => setEditing(false)}
              onSave={(overlay) =>
                act(
                  useMcpServers.getState().setOverlay(systemId, tool.tool, overlay),
                  message('mcp.overlay.saved', { tool: tool.tool }),
                )
              }
            />
          </td>
        </tr>
      )}
    </>
  );
}

function TriSelect({
  label,
  value,
  onChange,
}: {
  label: string;
  value: OverlayDraft['approval'];
  onChange: (v: OverlayDraft['approval']) => void;
}) {
  const t = useT();
  return (
    <label>
      {label}
      <select value={value} onChange={(e) => onChange(e.target.value as OverlayDraft['approval'])}>
        <option value="">{t('mcp.overlay.inherit')}</option>
        <option value="yes">{t('mcp.value.yes')}</option>
        <option value="no">{t('mcp.value.no')}</option>
      </select>
    </label>
  );
}

function OverlayForm({
  tool,
  tools,
  busy,
  onSave,
  onCancel,
}: {
  tool: McpToolItem;
  tools: McpToolItem[];
  busy: boolean;
  onSave: (o: McpOverlayInput) => void;
  onCancel: () => void;
}) {
  const t = useT();
  const [d, setD] = useState<OverlayDraft>(() => draftOf(tool.overlay));
  const [problems, setProblems] = useState<{ field: string; code: OverlayProblemCode }[]>([]);
  const put = (patch: Partial<OverlayDraft>) => setD({ ...d, ...patch });
  const problemAt = (field: string) => {
    const p = problems.find((x) => x.field === field);
    return p ? (
      <span className="field-problem state-bad" data-testid={`mcp-overlay-problem-${field}`}>
        {t(`mcpOverlay.problem.${p.code}`)}
      </span>
    ) : null;
  };
  return (
    <form
      className="mcp-overlay"
      aria-label={t('mcp.overlay.title', { tool: tool.tool })}
      onSubmit={(e) => {
        e.preventDefault();
        const r = overlayOf(d, tool.overlay);
        if (!r.ok) {
          setProblems(r.problems);
          return;
        }
        setProblems([]);
        onSave(r.overlay);
      }}
    >
      <fieldset>
        <legend>{t('mcp.overlay.title', { tool: tool.tool })}</legend>
        <label>
          {t('mcp.overlay.effect')}
          <select
            value={d.effect}
            onChange={(e) => put({ effect: e.target.value as OverlayDraft['effect'] })}
          >
            <option value="">{t('mcp.overlay.inherit')}</option>
            <option value="read">{t('effect.read')}</option>
            <option value="write">{t('effect.write')}</option>
          </select>
        </label>
        <label>
          {t('mcp.overlay.risk')}
          <select
            value={d.risk_level}
            onChange={(e) => put({ risk_level: e.target.value as OverlayDraft['risk_level'] })}
          >
            <option value="">{t('mcp.overlay.inherit')}</option>
            {(['low', 'medium', 'high'] as const).map((r) => (
              <option key={r} value={r}>
                {t(`mcp.risk.${r}`)}
              </option>
            ))}
          </select>
        </label>
        <TriSelect
          label={t('mcp.overlay.approval')}
          value={d.approval}
          onChange={(v) => put({ approval: v })}
        />
        <label>
          {t('mcp.overlay.rate')}
          <select value={d.rate} onChange={(e) => put({ rate: e.target.value as OverlayDraft['rate'] })}>
            <option value="">{t('mcp.overlay.inherit')}</option>
            <option value="none">{t('mcp.overlay.rateNone')}</option>
            <option value="set">{t('mcp.overlay.rateSet')}</option>
          </select>
        </label>
        {d.rate === 'set' && (
          <>
            <label>
              {t('mcp.overlay.rateCount')}
              <input
                inputMode="numeric"
                value={d.rate_count}
                onChange={(e) => put({ rate_count: e.target.value })}
                maxLength={7}
              />
            </label>
            {problemAt('rate_count')}
            <label>
              {t('mcp.overlay.rateWindow')}
              <select
                value={d.rate_window}
                onChange={(e) => put({ rate_window: e.target.value as OverlayDraft['rate_window'] })}
              >
                {(['1s', '1m', '1h', '1d'] as const).map((w) => (
                  <option key={w} value={w}>
                    {t(`mcp.window.${w}`)}
                  </option>
                ))}
              </select>
            </label>
          </>
        )}
        <label>
          {t('mcp.overlay.timeout')}
          <input
            inputMode="numeric"
            value={d.timeout_ms}
            onChange={(e) => put({ timeout_ms: e.target.value })}
            maxLength={7}
          />
        </label>
        {problemAt('timeout_ms')}
        <TriSelect
          label={t('mcp.overlay.idempotent')}
          value={d.idempotent}
          onChange={(v) => put({ idempotent: v })}
        />
        <label>
          {t('mcp.overlay.lookup')}
          <select value={d.lookup_tool} onChange={(e) => put({ lookup_tool: e.target.value })}>
            <option value="">{t('mcp.overlay.inherit')}</option>
            <option value={NO_LOOKUP}>{t('mcp.value.none')}</option>
            {tools
              .filter((x) => x.tool !== tool.tool)
              .map((x) => (
                <option key={x.tool} value={x.tool}>
                  {x.tool}
                </option>
              ))}
          </select>
        </label>
        <TriSelect label={t('mcp.overlay.enabled')} value={d.enabled} onChange={(v) => put({ enabled: v })} />
        <TriSelect
          label={t('mcp.overlay.auditSensitive')}
          value={d.audit_sensitive}
          onChange={(v) => put({ audit_sensitive: v })}
        />
      </fieldset>
      <div className="row">
        <button type="submit" disabled={busy}>
          {t('mcp.overlay.save')}
        </button>
        <button type="button" onClick={onCancel}>
          {t('mcp.overlay.cancel')}
        </button>
      </div>
    </form>
  );
}

export function McpToolTable({ systemId, name }: { systemId: string; name: string }): React.JSX.Element {
  const t = useT();
  const tools = useMcpServers((s) => s.tools[systemId]);
  if (!tools) return <p className="muted">{t('app.loading')}</p>;
  if (tools.length === 0) return <p className="muted">{t('mcp.tools.empty')}</p>;
  return (
    <table className="mcp-tools" data-testid="mcp-tools" data-system={systemId}>
      <caption>
        <strong>{t('mcp.tools.title', { name })}</strong> — {t('mcp.tools.caption')}
      </caption>
      <thead>
        <tr>
          <th scope="col">{t('mcp.tools.col.tool')}</th>
          <th scope="col">{t('mcp.tools.col.effect')}</th>
          <th scope="col">{t('mcp.tools.col.risk')}</th>
          <th scope="col">{t('mcp.tools.col.approval')}</th>
          <th scope="col">{t('mcp.tools.col.rate')}</th>
          <th scope="col">{t('mcp.tools.col.timeout')}</th>
          <th scope="col">{t('mcp.tools.col.idempotent')}</th>
          <th scope="col">{t('mcp.tools.col.lookup')}</th>
          <th scope="col">{t('mcp.tools.col.enabled')}</th>
          <th scope="col">{t('mcp.tools.col.actions')}</th>
        </tr>
      </thead>
      <tbody>
        {tools.map((tool) => (
          <ToolRow key={tool.tool} systemId={systemId} tool={tool} tools={tools} />
        ))}
      </tbody>
    </table>
  );
}
