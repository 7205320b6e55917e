/**
 * Settings (local Hub): the MCP servers the Hub governs — name, transport, connection and last
 * problem, tool count — with Read tools again, Remove (after a confirmation; the Hub retires the
 * server), each server's tool table (McpToolTable) and the form that adds one (McpServerForm). docs/desktop-app.md, docs/mcp.md#in-the-desk.
 */
import React, { useEffect, useState } from 'react';
import type { McpServerItem } from '../../../src-shared/ipc/mcp.js';
import { useT } from '../i18n/use-t.js';
import { caught, message, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { hubUsable, useApp } from '../store/app.js';
import { useMcpServers } from '../store/mcp-servers.js';
import { ConfirmPanel } from './ConfirmPanel.js';
import { KindBadge } from './KindBadge.js';
import { McpServerForm } from './McpServerForm.js';
import { McpToolTable } from './McpToolTable.js';

function ServerRow({ server }: { server: McpServerItem }): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const [open, setOpen] = useState(false);
  const [busy, setBusy] = useState(false);
  const [confirming, setConfirming] = useState(false);
  const [answer, setAnswer] = useState<{ ok: boolean; shown: ShownError } | null>(null);
  const store = useMcpServers.getState;
  const act = (p: Promise<void>, done: ShownError | null) => {
    setBusy(true);
    setAnswer(null);
    p.then(
      () => setAnswer(done ? { ok: true, shown: done } : null),
      (err: unknown) => setAnswer({ ok: false, shown: caught(err) }),
    ).finally(() => setBusy(false));
  };
  const toggle = () => {
    const next = !open;
    setOpen(next);
    if (next) act(store().loadTools(server.system_id), null);
  };
  const problem = server.problems[0];
  return (
    <li className="mcp-server card" data-testid="mcp-server" data-system={server.system_id}>
      <div className="row">
        <strong>{server.name}</strong> <KindBadge kind="mcp" /> <code>{server.system_id}</code>
        <span>· {t(`mcp.transport.${server.transport}`)}</span>
        <span
          data-testid="mcp-server-connection"
          className={server.connection === 'connected' ? 'state-ok' : 'state-bad'}
        >
          · {t(server.connection ? `mcp.connection.${server.connection}` : 'mcp.connection.unknown')}
        </span>
        <span data-testid="mcp-server-tool-count">· {t('mcp.toolCount', { count: server.tool_count })}</span>
      </div>
      <div className="muted small">
        <code>{server.transport === 'stdio' ? [server.command, ...server.args].join(' ') : server.url}</code>
        {server.server_info && (
          <>
            {' '}
            · {t('mcp.serverInfo', { name: server.server_info.name, version: server.server_info.version })}
          </>
        )}
        {server.secret_env_names.length > 0 && (
          <> · {t('mcp.secretNames', { names: server.secret_env_names.join(', ') })}</>
        )}
        {server.has_bearer_token && <> · {t('mcp.bearerStored')}</>}
      </div>
      {problem && (
        <p className="state-bad" data-testid="mcp-server-problem">
          {t('mcp.problem', { code: problem.code })} <span lang="en">{problem.message}</span>
        </p>
      )}
      <div className="row">
        <button type="button" onClick={toggle} aria-expanded={open} disabled={!usable && !open}>
          {t(open ? 'mcp.hideTools' : 'mcp.showTools')}
        </button>
        <button
          type="button"
          disabled={busy || !usable}
          onClick={() => act(store().refresh(server.system_id), message('mcp.refreshed'))}
        >
          {t('mcp.refresh')}
        </button>
        {!confirming && (
          <button
            type="button"
            data-testid="mcp-server-remove"
            disabled={busy || !usable}
            onClick={() => {
              setAnswer(null);
              setConfirming(true);
            }}
          >
            {t('mcp.remove')}
          </button>
        )}
        {answer && (
          <span
            role={answer.ok ? 'status' : 'alert'}
            className={answer.ok ? 'state-ok' : 'state-bad'}
            data-testid="mcp-server-answer"
          >
            {shownErrorText(answer.shown, t)}
          </span>
        )}
      </div>
      {confirming && (
        <ConfirmPanel
          label={t('mcp.remove')}
          text={t('mcp.remove.confirm', { name: server.name })}
          confirmLabel={t('mcp.remove.yes')}
          cancelLabel={t('mcp.remove.no')}
          disabled={busy || !usable}
          testId="mcp-server-remove-confirm"
          onConfirm={() => {
            setConfirming(false);
            act(store().remove(server.system_id), null);
          }}
          onCancel={() => setConfirming(false)}
        />
      )}
      {open && <McpToolTable systemId={server.system_id} name={server.name} />}
    </li>
  );
}

export function McpServersSettings(): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const { canManage, servers } = useMcpServers();
  const [error, setError] = useState<ShownError | null>(null);
  useEffect(() => {
    if (!usable) return;
    useMcpServers
      .getState()
      .load()
      .then(
        () => setError(null),
        (err: unknown) => setError(caught(err)),
      );
  }, [usable]);
  return (
    <section className="mcp-servers" aria-labelledby="mcp-title" data-testid="mcp-servers">
      <h3 id="mcp-title">{t('mcp.title')}</h3>
      {canManage === false ? (
        <p className="muted">{t('mcp.remoteOnly')}</p>
      ) : (
        <>
          <p className="muted">{t('mcp.intro')}</p>
          {error && (
            <p role="alert" className="state-bad">
              {shownErrorText(error, t)}
            </p>
          )}
          {canManage === null && !error && <p className="muted">{t('mcp.loading')}</p>}
          {canManage && servers.length === 0 && <p className="muted">{t('mcp.none')}</p>}
          {servers.length > 0 && (
            <ul className="plain" aria-label={t('mcp.list')}>
              {servers.map((s) => (
                <ServerRow key={s.system_id} server={s} />
              ))}
            </ul>
          )}
          {canManage && <McpServerForm />}
        </>
      )}
    </section>
  );
}
