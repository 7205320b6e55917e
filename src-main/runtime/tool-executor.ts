/**
 * Executes one tool call the model (or the operator, by hand) made. Nothing reaches the Hub unless
 * the call is well formed, names a function the cache holds (or one of the three built-ins), and its
 * arguments pass the declaration's full schema and the target rules. Governed calls go through the
 * InvocationRuntime (journal fence first). Results of calls that finish after their turn was
 * cancelled are recorded as late receipts and never fed back into that turn.
 *
 * A session whose scope is `offline` or `not_opened` is re-checked lazily, only right before a call
 * would go to the Hub (./tool-calls/hub-gate.ts), so ordinary chat never makes a scope request
 * (invariant 8, docs/design.md#invariants). A member the Hub reports revoked or rebound comes back
 * as a value on the call's outcome (`scopeBlock`) and blocks the whole scope here.
 */
import type { Receipt } from '../../src-shared/hub-api.js';
import type { ArgumentValidator } from './argument-validation.js';
import type { RuntimeHubPort } from './hub-port.js';
import type { InvocationRuntime } from './invocation-ports.js';
import type { LiveSession, Recorder, TurnContext } from './live-session.js';
import type { ScopeAvailability } from './sessions/scope-availability.js';
import { updateCard } from './tool-calls/cards.js';
import type { ToolCallContext } from './tool-calls/context.js';
import { governedCall } from './tool-calls/governed-call.js';
import { createHubGate, scopeUnavailable } from './tool-calls/hub-gate.js';
import { refuse, turnCancelled, type ExecutableCall, type Outcome } from './tool-calls/outcome.js';
import { recoveryCall } from './tool-calls/recovery-call.js';
import { searchToolsCall } from './tool-calls/search-call.js';
import { targetOf } from './tool-calls/targets.js';

export type { ExecutableCall } from './tool-calls/outcome.js';
export { handleOf, targetOf } from './tool-calls/targets.js';

export interface ToolExecutorDeps {
  hub: Pick<RuntimeHubPort, 'searchTools'>;
  invocations: InvocationRuntime;
  validator: ArgumentValidator;
  recorder: Recorder;
  scope: Pick<ScopeAvailability, 'ensure' | 'block'>;
  /** Known secret values (Hub token, model key). A governed call whose arguments contain one is refused, nothing sent. */
  secrets?: () => readonly string[];
}

export interface ToolExecutor {
  /** Runs the call and records its result (or a late receipt when the turn was cancelled meanwhile). */
  execute(session: LiveSession, turn: TurnContext, call: ExecutableCall): Promise<Outcome>;
}

const BUILT_INS = new Set([
  'search_tools',
  'inspect_governed_tool_invocation',
  'resume_governed_tool_invocation',
]);

function parseArgs(text: string): { ok: true; value: unknown } | { ok: false } {
  if (text.trim() === '') return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** search_tools, inspect or resume: only with a business scope that is not blocked. */
function builtInCall(
  ctx: ToolCallContext,
  session: LiveSession,
  turn: TurnContext,
  name: string,
  args: unknown,
) {
  if (session.scope.members.length === 0)
    return refuse(
      'unsupported',
      'no_business_scope',
      'This conversation has no selected business systems; no tools are available.',
      'none',
    );
  // Blocked: refused at once. Offline / not yet checked: re-checked lazily once the arguments are valid.
  if (session.availability === 'blocked') return scopeUnavailable(session);
  if (name === 'search_tools') return searchToolsCall(ctx, session, turn, args);
  return recoveryCall(
    ctx,
    session,
    turn,
    name === 'inspect_governed_tool_invocation' ? 'inspect' : 'resume',
    args,
  );
}

function notLoaded(session: LiveSession, name: string): Outcome {
  const why = session.cache.evictedReason(name);
  const reason =
    why === 'declaration_changed'
      ? 'its declaration changed'
      : why === 'authorization_changed'
        ? 'its authorization was revoked or rebound'
        : why
          ? 'it was unloaded'
          : 'it is not loaded';
  return refuse(
    'tool_not_loaded',
    'tool_not_loaded',
    `${name} is not available because ${reason}; nothing was sent. Use search_tools to load it again.`,
    'search_tools',
    'refused',
    `${name}: ${reason}`,
  );
}

/** Sends the call where it belongs: a built-in, a cached declaration, or a refusal. */
async function route(
  ctx: ToolCallContext,
  session: LiveSession,
  turn: TurnContext,
  call: ExecutableCall,
): Promise<Outcome> {
  if (turn.cancelled) return turnCancelled('The turn was cancelled; this call was not sent.');
  const parsed = parseArgs(call.argumentsText);
  if (!parsed.ok) {
    return refuse(
      'arguments_invalid',
      'malformed_arguments',
      `The arguments of ${call.name} are not valid JSON; nothing was sent. Send a JSON object.`,
      'fix_arguments',
    );
  }
  if (BUILT_INS.has(call.name)) return builtInCall(ctx, session, turn, call.name, parsed.value);
  // A blocked scope blocks every member, including the surviving ones. An offline one is re-checked
  // once the call passed its local checks, right before it would need the Hub.
  if (session.scope.members.length > 0 && session.availability === 'blocked')
    return scopeUnavailable(session);
  const entry = session.cache.byFunctionName(call.name);
  if (!entry) return notLoaded(session, call.name);
  updateCard(ctx.recorder, session, turn, call, {
    target: targetOf(entry.declaration),
    effect: entry.declaration.effect,
    masked: entry.declaration.audit_sensitive,
  });
  return governedCall(ctx, session, turn, call, entry, parsed.value);
}

/** The card's last state and the archive record of the result (a late receipt after a cancelled turn). */
function recordResult(
  recorder: Recorder,
  session: LiveSession,
  turn: TurnContext,
  call: ExecutableCall,
  outcome: Outcome,
): void {
  const late = turn.cancelled || turn.ended;
  const final = updateCard(recorder, session, turn, call, {
    state: outcome.state,
    feedback: outcome.feedback,
    invocation_id: outcome.invocation_id,
    receipt: outcome.receipt,
    late,
  });
  if (late && outcome.receipt) {
    recorder.record(session, turn.turnId, {
      kind: 'receipt',
      callId: call.callId,
      invocation_id: outcome.receipt.invocation_id,
      state: outcome.receipt.state,
      receipt: archivedReceipt(outcome.receipt, final.masked),
      late: true,
    });
  } else {
    recorder.record(session, turn.turnId, {
      kind: 'tool_result',
      callId: call.callId,
      functionName: call.name,
      content: outcome.content,
      feedback: outcome.feedback,
      invocation_id: outcome.invocation_id,
      // So a reopened conversation shows the card exactly as it ended, its result included.
      state: final.state,
      effect: final.effect,
      receipt: outcome.receipt ? archivedReceipt(outcome.receipt, final.masked) : null,
    });
  }
}

/** The receipt as the archive keeps it: an audit-sensitive operation's result is not kept for the card. */
function archivedReceipt(receipt: Receipt, masked: boolean): Receipt {
  return masked ? { ...receipt, result: null, result_truncated: false } : receipt;
}

export function createToolExecutor(deps: ToolExecutorDeps): ToolExecutor {
  const ctx: ToolCallContext = {
    hub: deps.hub,
    invocations: deps.invocations,
    validator: deps.validator,
    recorder: deps.recorder,
    gate: createHubGate(deps.scope),
    secrets: deps.secrets ?? (() => []),
  };
  return {
    async execute(session, turn, call) {
      updateCard(deps.recorder, session, turn, call, { state: 'validating' });
      let outcome: Outcome;
      try {
        outcome = await route(ctx, session, turn, call);
      } catch (err) {
        const why = err instanceof Error ? err.message : String(err);
        outcome = refuse(
          'invocation_outcome_unknown',
          'runtime_error',
          `The call ended with an unexpected error (${why}); its outcome is not known. Inspect before trying anything else.`,
          'inspect_original',
          'unknown',
          why,
        );
      }
      if (outcome.scopeBlock) deps.scope.block(session, outcome.scopeBlock);
      recordResult(deps.recorder, session, turn, call, outcome);
      return outcome;
    },
  };
}
