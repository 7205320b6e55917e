/**
 * The built-ins `inspect_governed_tool_invocation` and `resume_governed_tool_invocation`: they take
 * only the original invocation_id and act on that original call (docs/journal.md, "Recovery").
 */
import type { InvocationActionEnvelope } from '../invocation-ports.js';
import type { LiveSession, TurnContext } from '../live-session.js';
import { boundedJson, INVOCATION_ID_SCHEMA, receiptForModel } from '../model-tools.js';
import type { ToolCallContext } from './context.js';
import { refuse, type Outcome } from './outcome.js';
import type { RecoveryAction } from '../../../src-shared/states.js';
import { handleOf } from './targets.js';

export async function recoveryCall(
  ctx: ToolCallContext,
  session: LiveSession,
  turn: TurnContext,
  action: Exclude<RecoveryAction, 'attest'>,
  args: unknown,
): Promise<Outcome> {
  const check = ctx.validator.checkPlain('builtin:invocation_id', INVOCATION_ID_SCHEMA, args);
  if (!check.ok) {
    return refuse(
      'arguments_invalid',
      'arguments_invalid',
      `Only the original invocation_id is accepted: ${check.errors.join('; ')}`,
      'fix_arguments',
      'refused',
      check.errors.join('; '),
    );
  }
  const gate = await ctx.gate.pass(session, turn);
  if (gate) return gate;
  const id = (args as { invocation_id: string }).invocation_id;
  const handle = handleOf(session, turn.turnId);
  let env: InvocationActionEnvelope;
  try {
    env =
      action === 'inspect'
        ? await ctx.invocations.inspectSessionInvocation(handle, id, { signal: turn.abort.signal })
        : await ctx.invocations.resumeSessionInvocation(handle, id);
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err);
    return refuse(
      'hub_unavailable',
      'recovery_failed',
      `The ${action} request failed: ${why}`,
      'inspect_original',
      'refused',
      why,
    );
  }
  if (
    action === 'resume' &&
    env.receipt &&
    session.scope.members.some((m) => m.authorization_ref === env.receipt?.authorization_ref)
  ) {
    // A recovery turn may open a current-turn run for the original target, for audit association only.
    await turn.runs.runFor(env.receipt.authorization_ref).catch(() => undefined);
  }
  return {
    content: recoveryContent(env, action, id),
    feedback: env.feedback,
    invocation_id: id,
    receipt: env.receipt,
    state:
      env.receipt?.state ??
      (env.feedback?.category === 'invocation_outcome_unknown' ? 'unverified' : 'refused'),
  };
}

function recoveryContent(
  env: InvocationActionEnvelope,
  action: Exclude<RecoveryAction, 'attest'>,
  id: string,
): string {
  if (env.receipt)
    return receiptForModel(env.receipt, env.feedback, {
      action,
      journal_state: env.state,
      resume_dispatched: env.resume_dispatched,
    });
  return boundedJson({
    action,
    invocation_id: id,
    journal_state: env.state,
    resume_dispatched: env.resume_dispatched,
    feedback: env.feedback,
  });
}
