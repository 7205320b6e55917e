/**
 * Settings: add an MCP server — a command the Hub starts (stdio: command, arguments, environment
 * with secret values, working folder) or a URL (Streamable HTTP, optional bearer token). The values
 * are checked here (mcpFormProblems, the same check main runs again) and each problem is shown at
 * its control; the Hub's answer (e.g. a server that never answered initialize) next to the button.
 * Secret inputs are password fields, cleared once the server is added; nothing shows them again.
 */
import React, { useState } from 'react';
import {
  MAX_MCP_ENV,
  mcpFormProblems,
  type AddMcpServerForm,
  type McpEnvEntry,
  type McpFormProblem,
} from '../../../src-shared/ipc/mcp.js';
import type { McpTransport } from '../../../src-shared/states.js';
import { ApiError } from '../api-client.js';
import { useT } from '../i18n/use-t.js';
import { caught, message, shownErrorText, type ShownError } from '../logic/shown-error.js';
import { hubUsable, useApp } from '../store/app.js';
import { useMcpServers } from '../store/mcp-servers.js';

function FieldProblem({ problems, field }: { problems: McpFormProblem[]; field: string }) {
  const t = useT();
  const p = problems.find((x) => x.field === field);
  if (!p) return null;
  return (
    <span
      className="field-problem state-bad"
      id={`mcp-problem-${field}`}
      data-testid={`mcp-problem-${field}`}
    >
      {t(`mcpForm.problem.${p.code}`)}
    </span>
  );
}

/** A refusal that is about the id (taken, or used by an HTTP system) is shown at the id field. */
const idRefusal = (err: unknown): boolean =>
  err instanceof ApiError &&
  (err.code === 'system_exists' || err.data.cause?.error === 'system_kind_mismatch');

const describedBy = (problems: McpFormProblem[], field: string) =>
  problems.some((p) => p.field === field) ? `mcp-problem-${field}` : undefined;

export function McpServerForm(): React.JSX.Element {
  const t = useT();
  const usable = useApp(hubUsable);
  const [systemId, setSystemId] = useState('');
  const [name, setName] = useState('');
  const [transport, setTransport] = useState<McpTransport>('stdio');
  const [command, setCommand] = useState('');
  const [args, setArgs] = useState('');
  const [cwd, setCwd] = useState('');
  const [env, setEnv] = useState<McpEnvEntry[]>([]);
  const [url, setUrl] = useState('');
  const [token, setToken] = useState('');
  const [problems, setProblems] = useState<McpFormProblem[]>([]);
  const [busy, setBusy] = useState(false);
  const [answer, setAnswer] = useState<{ ok: boolean; shown: ShownError; atId?: boolean } | null>(null);

  const form = (): AddMcpServerForm => ({
    system_id: systemId.trim(),
    name,
    server:
      transport === 'stdio'
        ? {
            transport,
            command,
            args: args.split('\n').filter((a) => a.trim() !== ''),
            env,
            cwd: cwd.trim() === '' ? null : cwd.trim(),
          }
        : { transport, url: url.trim(), bearer_token: token === '' ? null : token },
  });
  const setEnvAt = (i: number, patch: Partial<McpEnvEntry>) =>
    setEnv(env.map((e, j) => (j === i ? { ...e, ...patch } : e)));

  const submit = (e: React.FormEvent) => {
    e.preventDefault();
    if (busy) return;
    const values = form();
    const found = mcpFormProblems(values);
    setProblems(found);
    setAnswer(null);
    if (found.length > 0) return;
    setBusy(true);
    useMcpServers
      .getState()
      .add(values)
      .then(
        (item) => {
          setAnswer({
            ok: true,
            shown: message('mcp.add.added', { name: item.name, count: item.tool_count }),
          });
          // The server is registered and its secrets are with the Hub: the form starts empty again.
          setSystemId('');
          setName('');
          setCommand('');
          setArgs('');
          setCwd('');
          setEnv([]);
          setUrl('');
          setToken('');
        },
        (err: unknown) => setAnswer({ ok: false, shown: caught(err), atId: idRefusal(err) }),
      )
      .finally(() => setBusy(false));
  };

  return (
    <form className="card mcp-add" aria-label={t('mcp.add.title')} onSubmit={submit} noValidate>
      <fieldset>
        <legend>{t('mcp.add.title')}</legend>
        <label>
          {t('mcp.add.systemId')}
          <input
            value={systemId}
            onChange={(e) => setSystemId(e.target.value)}
            maxLength={63}
            aria-describedby={describedBy(problems, 'system_id')}
          />
        </label>
        <FieldProblem problems={problems} field="system_id" />
        {answer?.atId && (
          <span role="alert" className="field-problem state-bad" data-testid="mcp-add-answer">
            {shownErrorText(answer.shown, t)}
          </span>
        )}
        <label>
          {t('mcp.add.name')}
          <input
            value={name}
            onChange={(e) => setName(e.target.value)}
            maxLength={200}
            aria-describedby={describedBy(problems, 'name')}
          />
        </label>
        <FieldProblem problems={problems} field="name" />
        <fieldset>
          <legend>{t('mcp.add.transport')}</legend>
          {(['stdio', 'streamable_http'] as const).map((tr) => (
            <label key={tr}>
              <input
                type="radio"
                name="mcp-transport"
                checked={transport === tr}
                onChange={() => setTransport(tr)}
              />
              {t(`mcp.transport.${tr}`)}
            </label>
          ))}
        </fieldset>
        {transport === 'stdio' ? (
          <>
            <label>
              {t('mcp.add.command')}
              <input
                value={command}
                onChange={(e) => setCommand(e.target.value)}
                maxLength={1024}
                aria-describedby={describedBy(problems, 'command')}
              />
            </label>
            <FieldProblem problems={problems} field="command" />
            <label>
              {t('mcp.add.args')}
              <textarea value={args} onChange={(e) => setArgs(e.target.value)} rows={3} />
            </label>
            {problems
              .filter((p) => p.field.startsWith('args.'))
              .slice(0, 1)
              .map((p) => (
                <FieldProblem key={p.field} problems={problems} field={p.field} />
              ))}
            <label>
              {t('mcp.add.cwd')}
              <input
                value={cwd}
                onChange={(e) => setCwd(e.target.value)}
                maxLength={1024}
                aria-describedby={describedBy(problems, 'cwd')}
              />
            </label>
            <FieldProblem problems={problems} field="cwd" />
            <fieldset className="mcp-env">
              <legend>{t('mcp.add.env')}</legend>
              {env.map((entry, i) => (
                <div className="row" key={i} data-testid="mcp-env-row">
                  <input
                    aria-label={t('mcp.add.envName', { n: i + 1 })}
                    value={entry.name}
                    maxLength={128}
                    onChange={(e) => setEnvAt(i, { name: e.target.value })}
                    aria-describedby={describedBy(problems, `env.${i}.name`)}
                  />
                  <input
                    aria-label={t('mcp.add.envValue', { n: i + 1 })}
                    type={entry.secret ? 'password' : 'text'}
                    autoComplete="off"
                    value={entry.value}
                    maxLength={8192}
                    onChange={(e) => setEnvAt(i, { value: e.target.value })}
                    aria-describedby={describedBy(problems, `env.${i}.value`)}
                  />
                  <label>
                    <input
                      type="checkbox"
                      checked={entry.secret}
                      onChange={(e) => setEnvAt(i, { secret: e.target.checked })}
                    />
                    {t('mcp.add.envSecret')}
                  </label>
                  <button
                    type="button"
                    onClick={() => setEnv(env.filter((_, j) => j !== i))}
                    aria-label={t('mcp.add.envRemove', { n: i + 1 })}
                  >
                    ✕
                  </button>
                  <FieldProblem problems={problems} field={`env.${i}.name`} />
                  <FieldProblem problems={problems} field={`env.${i}.value`} />
                </div>
              ))}
              <button
                type="button"
                disabled={env.length >= MAX_MCP_ENV}
                onClick={() => setEnv([...env, { name: '', value: '', secret: false }])}
              >
                {t('mcp.add.envAdd')}
              </button>
            </fieldset>
          </>
        ) : (
          <>
            <label>
              {t('mcp.add.url')}
              <input
                type="url"
                value={url}
                onChange={(e) => setUrl(e.target.value)}
                maxLength={2048}
                aria-describedby={describedBy(problems, 'url')}
              />
            </label>
            <FieldProblem problems={problems} field="url" />
            <label>
              {t('mcp.add.token')}
              <input
                type="password"
                autoComplete="off"
                value={token}
                onChange={(e) => setToken(e.target.value)}
                maxLength={4096}
                aria-describedby={describedBy(problems, 'bearer_token')}
              />
            </label>
            <FieldProblem problems={problems} field="bearer_token" />
          </>
        )}
        <p className="muted">{t('mcp.add.secretHint')}</p>
      </fieldset>
      <div className="row">
        <button type="submit" disabled={busy || !usable}>
          {t('mcp.add.submit')}
        </button>
        {busy && <span role="status">{t('mcp.add.adding')}</span>}
        {answer && !answer.atId && (
          <span
            role={answer.ok ? 'status' : 'alert'}
            className={answer.ok ? 'state-ok' : 'state-bad'}
            data-testid="mcp-add-answer"
          >
            {shownErrorText(answer.shown, t)}
          </span>
        )}
      </div>
    </form>
  );
}
