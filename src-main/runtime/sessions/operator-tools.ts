/**
 * Tools for an operator without a model: search the session's systems, list what is loaded, and
 * run one loaded tool by hand through the same executor (and so the same checks and dispatch fence)
 * a model's call takes.
 */
import { redactPayload } from '../../archive/index.js';
import type { Declaration } from '../../../src-shared/hub-api.js';
import type { CachedDeclaration } from '../declaration-cache.js';
import type { DeclarationView, ManualToolRunResult } from '../desk-runtime.js';
import { hubRefusalOf, type RuntimeHubPort } from '../hub-port.js';
import type { IdSource } from '../ids.js';
import type { LiveSession, Recorder } from '../live-session.js';
import { AppError } from '../../../src-shared/errors.js';
import type { ToolExecutor } from '../tool-executor.js';
import { targetOf } from '../tool-calls/targets.js';
import { startTurn } from '../turn-loop.js';
import type { ScopeAvailability } from './scope-availability.js';

export interface OperatorToolsDeps {
  hub: Pick<RuntimeHubPort, 'searchTools' | 'createRun' | 'endRun'>;
  scope: Pick<ScopeAvailability, 'ensure'>;
  executor: ToolExecutor;
  recorder: Recorder;
  ids: IdSource;
  secrets: () => readonly string[];
}

export interface OperatorTools {
  search(s: LiveSession, query: string): Promise<DeclarationView[]>;
  cached(s: LiveSession): DeclarationView[];
  runManually(
    s: LiveSession,
    functionName: string,
    args: Record<string, unknown>,
  ): Promise<ManualToolRunResult>;
}

export function declarationView(c: Pick<CachedDeclaration, 'functionName'> & { declaration: Declaration }) {
  const d = c.declaration;
  return {
    functionName: c.functionName,
    target: targetOf(d),
    description: d.description,
    input_schema: structuredClone(d.input_schema),
    effect: d.effect,
    approval_required: d.approval.required,
    idempotent: d.idempotent,
    system_kind: d.system_kind ?? 'http',
  } satisfies DeclarationView;
}

export function createOperatorTools(deps: OperatorToolsDeps): OperatorTools {
  async function search(s: LiveSession, query: string): Promise<DeclarationView[]> {
    if (s.scope.members.length === 0) return [];
    await deps.scope.ensure(s);
    if (s.availability !== 'open')
      throw new AppError('scope_unavailable', `the session's scope is ${s.availability}`);
    const refs = s.scope.members.map((m) => m.authorization_ref);
    let found;
    try {
      found = (
        await deps.hub.searchTools({ query: query.slice(0, 500), authorization_refs: refs, limit: 20 })
      ).declarations;
    } catch (err) {
      const refusal = hubRefusalOf(err);
      if (refusal)
        throw new AppError('hub_error', `The Hub refused the tool search (${refusal.code}).`, {
          error: refusal.code,
          message: refusal.message,
        });
      throw new AppError('hub_unavailable', 'the Hub could not be reached');
    }
    const cached = s.cache.put(
      found
        .filter((d) => d.hub_id === s.scope.hubId && refs.includes(d.authorization_ref))
        .map(({ score: _s, ...d }) => d),
    );
    return cached.map(declarationView);
  }

  async function runManually(
    s: LiveSession,
    functionName: string,
    args: Record<string, unknown>,
  ): Promise<ManualToolRunResult> {
    if (s.activeTurn) throw new AppError('turn_in_progress', 'a turn is already running in this session');
    const turn = startTurn(deps.hub, s, deps.ids.turnId());
    s.activeTurn = turn;
    try {
      const entry = s.cache.byFunctionName(functionName);
      const call = {
        callId: `${turn.turnId}.manual`,
        name: functionName,
        argumentsText: JSON.stringify(args ?? {}),
      };
      deps.recorder.record(s, turn.turnId, {
        kind: 'control',
        action: 'manual_tool_run',
        detail: { functionName },
      });
      deps.recorder.record(s, turn.turnId, {
        kind: 'tool_call',
        callId: call.callId,
        functionName,
        argumentsText: entry?.declaration.audit_sensitive ? null : call.argumentsText.slice(0, 64_000),
        target: entry ? targetOf(entry.declaration) : null,
        ...(entry?.declaration.audit_sensitive ? { sensitive: true } : {}),
      });
      await deps.executor.execute(s, turn, call);
      const card = s.cards.get(call.callId);
      if (!card) throw new AppError('internal_error', 'no card for the call');
      return { card: redactPayload(card, deps.secrets()) as typeof card };
    } finally {
      turn.ended = true;
      await turn.runs.endAll();
      s.activeTurn = null;
    }
  }

  return { search, cached: (s) => s.cache.list().map(declarationView), runManually };
}
