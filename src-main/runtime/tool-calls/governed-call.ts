/**
 * A call of a cached business declaration: the local checks (scope, secrets, schema and target
 * rules), then — only once they all passed — the Hub: the turn's run for the authorization, and
 * the governed call through the dispatch fence (docs/journal.md). The card reads `pending_dispatch`
 * until the fence is saved and the request leaves, then `dispatching` ("Running", via `onSent`).
 */
import type { Declaration } from '../../../src-shared/hub-api.js';
import type { CachedDeclaration } from '../declaration-cache.js';
import { hubRefusalOf } from '../hub-port.js';
import type { GovernedCallOutcome } from '../invocation-ports.js';
import type { LiveSession, TurnContext } from '../live-session.js';
import { feedbackForModel, receiptForModel } from '../model-tools.js';
import { updateCard } from './cards.js';
import type { ToolCallContext } from './context.js';
import { scopeUnavailable } from './hub-gate.js';
import { refuse, turnCancelled, type ExecutableCall, type Outcome } from './outcome.js';
import { containsSecret } from './secret-check.js';
import { handleOf } from './targets.js';

/** Hub refusals that take a member out of the scope: the whole scope is blocked (never a subset). */
const SCOPE_WORDS = {
  authorization_revoked: 'revoked',
  authorization_rebound: 'rebound',
  system_retired: 'retired on the Hub',
} as const;
const isScopeCode = (code: string): code is keyof typeof SCOPE_WORDS => Object.hasOwn(SCOPE_WORDS, code);

/** Everything checked on the host before the call may need the Hub; null when all passed. */
export function checkLocally(
  ctx: ToolCallContext,
  session: LiveSession,
  turn: TurnContext,
  call: ExecutableCall,
  entry: CachedDeclaration,
  args: unknown,
): Outcome | null {
  const d = entry.declaration;
  if (session.availability === 'blocked') return scopeUnavailable(session);
  if (containsSecret(args, ctx.secrets())) {
    // A secret must never travel as business data (the Hub would store and audit it).
    return refuse(
      'arguments_invalid',
      'secret_in_arguments',
      `The arguments of ${call.name} contain a credential of this application; nothing was sent. Never put keys or tokens into business data.`,
      'fix_arguments',
    );
  }
  // Values naming another member of the scope may not appear in this call's arguments.
  const foreign = new Set<string>();
  for (const m of session.scope.members) {
    for (const v of [m.authorization_ref, m.system_id, m.account]) foreign.add(v);
  }
  for (const v of [d.authorization_ref, d.system_id, d.account, d.system_name]) foreign.delete(v);
  const check = ctx.validator.check(entry.key, d, args, [...foreign]);
  if (!check.ok) {
    return refuse(
      'arguments_invalid',
      'arguments_invalid',
      `Arguments for ${call.name} do not satisfy its schema or target rules; nothing was sent: ${check.errors.join('; ')}`,
      'fix_arguments',
      'refused',
      check.errors.join('; '),
    );
  }
  if (turn.cancelled) return turnCancelled();
  return null;
}

/** The turn's run for the call's authorization, or the refusal (nothing sent). */
export async function openRun(
  session: LiveSession,
  turn: TurnContext,
  d: Declaration,
): Promise<{ runId: string } | Outcome> {
  try {
    return { runId: await turn.runs.runFor(d.authorization_ref) };
  } catch (err) {
    const refusal = hubRefusalOf(err);
    if (refusal && isScopeCode(refusal.code)) {
      session.cache.dropAuthorization(d.authorization_ref, 'authorization_changed');
      return {
        ...refuse(
          'blocked',
          refusal.code,
          `${d.system_name} (${d.account}) is ${SCOPE_WORDS[refusal.code]}; the whole scope is blocked. Nothing was sent.`,
          'none',
          'refused',
          `${d.system_name} (${d.account})`,
        ),
        scopeBlock: { reason: refusal.code, authorization_ref: d.authorization_ref },
      };
    }
    if (refusal)
      return refuse(
        'hub_error',
        refusal.code,
        `No run could be created: ${refusal.message}. Nothing was sent.`,
        'wait',
        'refused',
        refusal.message,
      );
    return refuse(
      'hub_unavailable',
      'hub_unavailable',
      'The Hub could not be reached to start a run; nothing was sent.',
      'wait',
    );
  }
}

/** What the card and the model get from the dispatch fence's outcome. */
export function outcomeOfGoverned(
  session: LiveSession,
  call: ExecutableCall,
  entry: CachedDeclaration,
  outcome: GovernedCallOutcome,
): Outcome {
  if (outcome.kind === 'receipt') {
    return {
      content: receiptForModel(outcome.receipt, outcome.feedback),
      feedback: outcome.feedback,
      invocation_id: outcome.invocation_id,
      receipt: outcome.receipt,
      state: outcome.receipt.state,
    };
  }
  const fb = outcome.feedback;
  if (outcome.kind === 'sent_unconfirmed') {
    return {
      content: feedbackForModel(fb, { invocation_id: outcome.invocation_id }),
      feedback: fb,
      invocation_id: outcome.invocation_id,
      receipt: null,
      state: 'unknown',
    };
  }
  if (fb.category === 'declaration_changed' || fb.code === 'declaration_changed') {
    session.cache.evict(entry.key, 'declaration_changed');
    const feedback = {
      ...fb,
      next_action: 'search_tools',
      message: `${fb.message} The declaration of ${call.name} changed and was unloaded: search again before calling it.`,
    };
    return {
      content: feedbackForModel(feedback),
      feedback,
      invocation_id: outcome.invocation_id,
      receipt: null,
      state: 'not_dispatched',
    };
  }
  const d = entry.declaration;
  let scopeBlock: Outcome['scopeBlock'];
  if (isScopeCode(fb.code)) {
    session.cache.dropAuthorization(d.authorization_ref, 'authorization_changed');
    scopeBlock = { reason: fb.code, authorization_ref: d.authorization_ref };
  }
  return {
    content: feedbackForModel(fb, outcome.invocation_id ? { invocation_id: outcome.invocation_id } : {}),
    feedback: fb,
    invocation_id: outcome.invocation_id,
    receipt: null,
    state: fb.category === 'not_dispatched' ? 'not_dispatched' : 'refused',
    ...(scopeBlock ? { scopeBlock } : {}),
  };
}

export async function governedCall(
  ctx: ToolCallContext,
  session: LiveSession,
  turn: TurnContext,
  call: ExecutableCall,
  entry: CachedDeclaration,
  args: unknown,
): Promise<Outcome> {
  const refused = checkLocally(ctx, session, turn, call, entry, args);
  if (refused) return refused;
  // Every local check passed: only now does this call need the Hub (and, if offline, a scope check).
  const gate = await ctx.gate.pass(session, turn);
  if (gate) return gate;
  updateCard(ctx.recorder, session, turn, call, { state: 'pending_dispatch' });
  const run = await openRun(session, turn, entry.declaration);
  if (!('runId' in run)) return run;
  if (turn.cancelled) return turnCancelled();
  // No abort signal: once the fence is saved the call runs to its receipt, even if the turn is cancelled.
  const outcome = await ctx.invocations.invokeGoverned(
    handleOf(session, turn.turnId),
    {
      declaration: entry.declaration,
      arguments: args as Record<string, unknown>,
      runId: run.runId,
      turnId: turn.turnId,
      hostCallId: call.callId,
    },
    {
      onSent: (invocationId) => {
        // Archived before the request leaves, so a conversation reopened after a crash knows the id.
        ctx.recorder.record(session, turn.turnId, {
          kind: 'call_sent',
          callId: call.callId,
          invocation_id: invocationId,
        });
        updateCard(ctx.recorder, session, turn, call, { state: 'dispatching', invocation_id: invocationId });
      },
    },
  );
  return outcomeOfGoverned(session, call, entry, outcome);
}
