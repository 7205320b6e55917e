/**
 * Executes one tool call the model made. Nothing reaches the Hub unless the call is well formed,
 * names a function the cache holds (or one of the three built-ins), and its arguments pass the
 * declaration's full schema and the target rules. Governed calls go through the InvocationRuntime
 * (journal fence first). Results of calls that finish after their turn was cancelled are recorded
 * as late receipts and never fed back into that turn.
 *
 * A session whose scope is `offline` or `not_opened` is re-checked here, lazily: only right before
 * a call would go to the Hub (search, inspect/resume, a governed call that passed every local
 * check), at most once per turn, and through `ensureScope`, which shares one in-flight check per
 * session. Ordinary chat therefore never makes a scope request (invariant 8).
 */
import type { Receipt } from '../../src-shared/hub-api.js';
import type { ArgumentValidator } from './argument-validation.js';
import type {
  Feedback,
  InvocationActionEnvelope,
  InvocationRuntime,
  RealSessionHandle,
} from './contracts.js';
import type { CachedDeclaration } from './declaration-cache.js';
import type { DispatchObserver } from './dispatch-observer.js';
import type { ToolCallCard, ToolTarget } from './desk-runtime.js';
import { hubErrorOf, type RuntimeHubPort } from './hub-port.js';
import type { LiveSession, Recorder, TurnContext } from './live-session.js';
import {
  boundedJson,
  feedbackForModel,
  hostFeedback,
  INVOCATION_ID_SCHEMA,
  receiptForModel,
  SEARCH_TOOLS_SCHEMA,
} from './model-tools.js';
import type { Declaration } from '../../src-shared/hub-api.js';

export interface ExecutableCall {
  callId: string; // host call id (unique per session); also the tool_call id in the model history
  name: string;
  argumentsText: string;
}

export interface ToolExecutorDeps {
  hub: RuntimeHubPort;
  invocations: InvocationRuntime;
  validator: ArgumentValidator;
  recorder: Recorder;
  onScopeBlocked(session: LiveSession, reason: string): void;
  /**
   * Re-checks an `offline` / `not_opened` scope against the Hub (updating `session.availability`);
   * resolves without a request for any other state. Concurrent callers share one check. Never rejects
   * for an unreachable Hub (the session just stays offline).
   */
  ensureScope(session: LiveSession): Promise<void>;
  /** Known secret values (Hub token, model key). A governed call whose arguments contain one is refused, nothing sent. */
  secrets?: () => readonly string[];
  /** Reports when a governed request is handed to the Hub (fence saved): the card then reads `dispatching`. */
  dispatches?: DispatchObserver;
}

/**
 * True when any known secret occurs anywhere in the serialized arguments. Only values of 12+
 * characters count: placeholder keys of local model servers ("ollama", "lm-studio") are no secret
 * and must not make ordinary words unusable in business data.
 */
function containsSecret(args: unknown, secrets: readonly string[]): boolean {
  const text = JSON.stringify(args ?? null);
  return secrets.some(
    (s) =>
      typeof s === 'string' &&
      s.length >= 12 &&
      (text.includes(s) || text.includes(JSON.stringify(s).slice(1, -1))),
  );
}

interface Outcome {
  content: string;
  feedback: Feedback | null;
  invocation_id: string | null;
  receipt: Receipt | null;
  state: ToolCallCard['state'];
}

export function targetOf(d: Declaration): ToolTarget {
  return {
    hub_id: d.hub_id,
    authorization_ref: d.authorization_ref,
    system_id: d.system_id,
    system_name: d.system_name,
    account: d.account,
    tool: d.tool,
    declaration_revision: d.declaration_revision,
  };
}

export function handleOf(session: LiveSession, turnId: string | null): RealSessionHandle {
  return { sessionId: session.sessionId, scope: session.scope, turnId };
}

export function createToolExecutor(deps: ToolExecutorDeps) {
  const { hub, invocations, validator, recorder } = deps;

  function card(
    session: LiveSession,
    turn: TurnContext | null,
    call: ExecutableCall,
    patch: Partial<ToolCallCard>,
  ): ToolCallCard {
    const prev = session.cards.get(call.callId);
    const next: ToolCallCard = {
      sessionId: session.sessionId,
      turnId: turn?.turnId ?? null,
      callId: call.callId,
      functionName: call.name,
      target: null,
      effect: null,
      invocation_id: null,
      state: 'validating',
      feedback: null,
      receipt: null,
      late: false,
      ...prev,
      ...patch,
    };
    session.cards.set(call.callId, next);
    recorder.emit({ type: 'tool.card', card: structuredClone(next) });
    return next;
  }

  const refuse = (
    category: Feedback['category'],
    code: string,
    message: string,
    next: string,
    state: ToolCallCard['state'] = 'refused',
  ): Outcome => {
    const feedback = hostFeedback(category, code, message, next);
    return { content: feedbackForModel(feedback), feedback, invocation_id: null, receipt: null, state };
  };

  /** The scope check of each turn that needed one (a turn asks the Hub about its scope at most once). */
  const turnChecks = new WeakMap<TurnContext, Promise<void>>();

  const scopeUnavailable = (session: LiveSession): Outcome =>
    refuse(
      'blocked',
      session.availabilityReason ?? 'scope_unavailable',
      `The session's scope is ${session.availability}; nothing was sent.`,
      'wait',
    );

  /**
   * Called right before a request to the Hub. Returns null when the scope is open (after a lazy
   * re-check if it was offline / not yet checked), otherwise the refusal to return (nothing sent).
   */
  async function hubGate(session: LiveSession, turn: TurnContext): Promise<Outcome | null> {
    if (session.availability === 'offline' || session.availability === 'not_opened') {
      let check = turnChecks.get(turn);
      if (!check) {
        check = deps.ensureScope(session).catch(() => undefined);
        turnChecks.set(turn, check);
      }
      await Promise.race([check, turn.cancelledSignal]);
    }
    if (turn.cancelled)
      return refuse(
        'not_dispatched',
        'turn_cancelled',
        'The turn was cancelled; nothing was sent.',
        'none',
        'not_dispatched',
      );
    return session.availability === 'open' ? null : scopeUnavailable(session);
  }

  function parseArgs(text: string): { ok: true; value: unknown } | { ok: false } {
    if (text.trim() === '') return { ok: true, value: {} };
    try {
      return { ok: true, value: JSON.parse(text) };
    } catch {
      return { ok: false };
    }
  }

  async function searchTools(session: LiveSession, turn: TurnContext, args: unknown): Promise<Outcome> {
    const check = validator.checkPlain('builtin:search_tools', SEARCH_TOOLS_SCHEMA, args);
    if (!check.ok)
      return refuse(
        'arguments_invalid',
        'arguments_invalid',
        `search_tools arguments are invalid: ${check.errors.join('; ')}`,
        'fix_arguments',
      );
    const gate = await hubGate(session, turn);
    if (gate) return gate;
    const a = args as { query: string; limit?: number };
    const refs = session.scope.members.map((m) => m.authorization_ref);
    let found: (Declaration & { score: number })[];
    try {
      found = await hub.searchTools(
        { query: a.query, authorization_refs: refs, limit: a.limit ?? 10 },
        { signal: turn.abort.signal },
      );
    } catch (err) {
      const he = hubErrorOf(err);
      if (he) return refuse('hub_error', he.publicCode, he.message, 'wait');
      return refuse(
        'hub_unavailable',
        'hub_unavailable',
        'The Hub could not be reached for a tool search.',
        'wait',
        'refused',
      );
    }
    // Only declarations of this session's own Hub and selected authorizations can be loaded.
    const inScope = found.filter(
      (d) => d.hub_id === session.scope.hubId && refs.includes(d.authorization_ref),
    );
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

  async function recoveryAction(
    session: LiveSession,
    turn: TurnContext,
    action: 'inspect' | 'resume',
    args: unknown,
  ): Promise<Outcome> {
    const check = validator.checkPlain('builtin:invocation_id', INVOCATION_ID_SCHEMA, args);
    if (!check.ok) {
      return refuse(
        'arguments_invalid',
        'arguments_invalid',
        `Only the original invocation_id is accepted: ${check.errors.join('; ')}`,
        'fix_arguments',
      );
    }
    const gate = await hubGate(session, turn);
    if (gate) return gate;
    const id = (args as { invocation_id: string }).invocation_id;
    const handle = handleOf(session, turn.turnId);
    let env: InvocationActionEnvelope;
    try {
      env =
        action === 'inspect'
          ? await invocations.inspectSessionInvocation(handle, id, { signal: turn.abort.signal })
          : await invocations.resumeSessionInvocation(handle, id);
    } catch (err) {
      return refuse(
        'hub_unavailable',
        'recovery_failed',
        `The ${action} request failed: ${err instanceof Error ? err.message : String(err)}`,
        'inspect_original',
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
    const content = env.receipt
      ? receiptForModel(env.receipt, env.feedback, {
          action,
          journal_state: env.state,
          resume_dispatched: env.resume_dispatched,
        })
      : boundedJson({
          action,
          invocation_id: id,
          journal_state: env.state,
          resume_dispatched: env.resume_dispatched,
          feedback: env.feedback,
        });
    return {
      content,
      feedback: env.feedback,
      invocation_id: id,
      receipt: env.receipt,
      state:
        env.receipt?.state ??
        (env.feedback?.category === 'invocation_outcome_unknown' ? 'unverified' : 'refused'),
    };
  }

  async function governed(
    session: LiveSession,
    turn: TurnContext,
    call: ExecutableCall,
    entry: CachedDeclaration,
    args: unknown,
  ): Promise<Outcome> {
    const d = entry.declaration;
    if (session.availability === 'blocked') return scopeUnavailable(session);
    if (containsSecret(args, deps.secrets?.() ?? [])) {
      // A secret must never travel as business data (the Hub would store and audit it).
      return refuse(
        'arguments_invalid',
        'secret_in_arguments',
        `The arguments of ${call.name} contain a credential of this application; nothing was sent. Never put keys or tokens into business data.`,
        'fix_arguments',
      );
    }
    const foreign = new Set<string>();
    for (const m of session.scope.members) {
      for (const v of [m.authorization_ref, m.system_id, m.account]) foreign.add(v);
    }
    for (const v of [d.authorization_ref, d.system_id, d.account, d.system_name]) foreign.delete(v);
    const check = validator.check(entry.key, d, args, [...foreign]);
    if (!check.ok) {
      return refuse(
        'arguments_invalid',
        'arguments_invalid',
        `Arguments for ${call.name} do not satisfy its schema or target rules; nothing was sent: ${check.errors.join('; ')}`,
        'fix_arguments',
      );
    }
    if (turn.cancelled)
      return refuse(
        'not_dispatched',
        'turn_cancelled',
        'The turn was cancelled; nothing was sent.',
        'none',
        'not_dispatched',
      );
    // Every local check passed: only now does this call need the Hub (and, if offline, a scope check).
    const gate = await hubGate(session, turn);
    if (gate) return gate;
    card(session, turn, call, { state: 'pending_dispatch' });
    let runId: string;
    try {
      runId = await turn.runs.runFor(d.authorization_ref);
    } catch (err) {
      const he = hubErrorOf(err);
      if (he && (he.publicCode === 'authorization_revoked' || he.publicCode === 'authorization_rebound')) {
        session.cache.dropAuthorization(d.authorization_ref, 'authorization_changed');
        deps.onScopeBlocked(session, `${he.publicCode}:${d.authorization_ref}`);
        return refuse(
          'blocked',
          he.publicCode,
          `${d.system_name} (${d.account}) is ${he.publicCode.replace('authorization_', '')}; the whole scope is blocked. Nothing was sent.`,
          'none',
        );
      }
      if (he)
        return refuse(
          'hub_error',
          he.publicCode,
          `No run could be created: ${he.message}. Nothing was sent.`,
          'wait',
        );
      return refuse(
        'hub_unavailable',
        'hub_unavailable',
        'The Hub could not be reached to start a run; nothing was sent.',
        'wait',
      );
    }
    if (turn.cancelled)
      return refuse(
        'not_dispatched',
        'turn_cancelled',
        'The turn was cancelled; nothing was sent.',
        'none',
        'not_dispatched',
      );
    // `pending_dispatch` lasts only until the fence is saved and the request leaves: then "Running".
    const stopWatching =
      deps.dispatches?.watch(runId, call.callId, (n) => {
        card(session, turn, call, { state: 'dispatching', invocation_id: n.invocation_id });
      }) ?? (() => undefined);
    let outcome: Awaited<ReturnType<InvocationRuntime['invokeGoverned']>>;
    try {
      // No abort signal: once the fence is saved the call runs to its receipt, even if the turn is cancelled.
      outcome = await invocations.invokeGoverned(handleOf(session, turn.turnId), {
        declaration: d,
        arguments: args as Record<string, unknown>,
        runId,
        turnId: turn.turnId,
        hostCallId: call.callId,
      });
    } finally {
      stopWatching();
    }
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
    if (fb.code === 'authorization_revoked' || fb.code === 'authorization_rebound') {
      session.cache.dropAuthorization(d.authorization_ref, 'authorization_changed');
      deps.onScopeBlocked(session, `${fb.code}:${d.authorization_ref}`);
    }
    return {
      content: feedbackForModel(fb, outcome.invocation_id ? { invocation_id: outcome.invocation_id } : {}),
      feedback: fb,
      invocation_id: outcome.invocation_id,
      receipt: null,
      state: fb.category === 'not_dispatched' ? 'not_dispatched' : 'refused',
    };
  }

  async function run(session: LiveSession, turn: TurnContext, call: ExecutableCall): Promise<Outcome> {
    if (turn.cancelled)
      return refuse(
        'not_dispatched',
        'turn_cancelled',
        'The turn was cancelled; this call was not sent.',
        'none',
        'not_dispatched',
      );
    const parsed = parseArgs(call.argumentsText);
    if (!parsed.ok) {
      return refuse(
        'arguments_invalid',
        'malformed_arguments',
        `The arguments of ${call.name} are not valid JSON; nothing was sent. Send a JSON object.`,
        'fix_arguments',
      );
    }
    const hasScope = session.scope.members.length > 0;
    if (
      call.name === 'search_tools' ||
      call.name === 'inspect_governed_tool_invocation' ||
      call.name === 'resume_governed_tool_invocation'
    ) {
      if (!hasScope)
        return refuse(
          'unsupported',
          'no_business_scope',
          'This conversation has no selected business systems; no tools are available.',
          'none',
        );
      // Blocked: refused at once. Offline / not yet checked: re-checked lazily once the arguments are valid.
      if (session.availability === 'blocked') return scopeUnavailable(session);
      if (call.name === 'search_tools') return searchTools(session, turn, parsed.value);
      return recoveryAction(
        session,
        turn,
        call.name === 'inspect_governed_tool_invocation' ? 'inspect' : 'resume',
        parsed.value,
      );
    }
    // A blocked scope blocks every member, including the surviving ones. An offline one is re-checked
    // in governed() once the call passed its local checks, right before it would need the Hub.
    if (hasScope && session.availability === 'blocked') return scopeUnavailable(session);
    const entry = session.cache.byFunctionName(call.name);
    if (!entry) {
      const why = session.cache.evictedReason(call.name);
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
        `${call.name} is not available because ${reason}; nothing was sent. Use search_tools to load it again.`,
        'search_tools',
      );
    }
    card(session, turn, call, { target: targetOf(entry.declaration), effect: entry.declaration.effect });
    return governed(session, turn, call, entry, parsed.value);
  }

  return {
    /** Runs the call and records its result (or a late receipt when the turn was cancelled meanwhile). */
    async execute(session: LiveSession, turn: TurnContext, call: ExecutableCall): Promise<Outcome> {
      card(session, turn, call, { state: 'validating' });
      let outcome: Outcome;
      try {
        outcome = await run(session, turn, call);
      } catch (err) {
        outcome = refuse(
          'invocation_outcome_unknown',
          'runtime_error',
          `The call ended with an unexpected error (${err instanceof Error ? err.message : String(err)}); its outcome is not known. Inspect before trying anything else.`,
          'inspect_original',
          'unknown',
        );
      }
      const late = turn.cancelled || turn.ended;
      const final = card(session, turn, call, {
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
          receipt: outcome.receipt,
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
          // So a reopened conversation shows the card exactly as it ended (the receipt is not archived twice).
          state: final.state,
          effect: final.effect,
        });
      }
      return outcome;
    },
  };
}

export type ToolExecutor = ReturnType<typeof createToolExecutor>;
