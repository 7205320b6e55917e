/** The built-in `search_tools`: asks the Hub, loads what it finds of this session's own scope into the cache. */
import type { CachedDeclaration } from '../declaration-cache.js';
import type { LiveSession, TurnContext } from '../live-session.js';
import { boundedJson, SEARCH_TOOLS_SCHEMA } from '../model-tools.js';
import { hubRefusalOf } from '../hub-port.js';
import type { ToolCallContext } from './context.js';
import { refuse, type Outcome } from './outcome.js';

export async function searchToolsCall(
  ctx: ToolCallContext,
  session: LiveSession,
  turn: TurnContext,
  args: unknown,
): Promise<Outcome> {
  const check = ctx.validator.checkPlain('builtin:search_tools', SEARCH_TOOLS_SCHEMA, args);
  if (!check.ok)
    return refuse(
      'arguments_invalid',
      'arguments_invalid',
      `search_tools arguments are invalid: ${check.errors.join('; ')}`,
      'fix_arguments',
      'refused',
      check.errors.join('; '),
    );
  const gate = await ctx.gate.pass(session, turn);
  if (gate) return gate;
  const a = args as { query: string; limit?: number };
  const refs = session.scope.members.map((m) => m.authorization_ref);
  let found;
  try {
    found = (
      await ctx.hub.searchTools(
        { query: a.query, authorization_refs: refs, limit: a.limit ?? 10 },
        { signal: turn.abort.signal },
      )
    ).declarations;
  } catch (err) {
    const refusal = hubRefusalOf(err);
    if (refusal)
      return refuse('hub_error', refusal.code, refusal.message, 'wait', 'refused', refusal.message);
    return refuse(
      'hub_unavailable',
      'hub_unavailable',
      'The Hub could not be reached for a tool search.',
      'wait',
      'refused',
    );
  }
  // Only declarations of this session's own Hub and selected authorizations can be loaded.
  const inScope = found.filter((d) => d.hub_id === session.scope.hubId && refs.includes(d.authorization_ref));
  const cached = session.cache.put(inScope.map(({ score: _score, ...d }) => d));
  const loaded = cached.map((c: CachedDeclaration) => ({
    function: c.functionName,
    system: c.declaration.system_name,
    account: c.declaration.account,
    tool: c.declaration.tool,
    effect: c.declaration.effect,
    approval_required: c.declaration.approval.required,
    description: c.declaration.description.slice(0, 300),
  }));
  return {
    content: boundedJson({
      loaded,
      note: loaded.length
        ? 'These functions are now loaded (with their full schemas) and stay available; call the one of the intended system.'
        : 'No matching tools in the selected systems.',
    }),
    feedback: null,
    invocation_id: null,
    receipt: null,
    state: 'succeeded',
  };
}
