/**
 * `tools/call` on the Hub's `/mcp` endpoint = a run plus an invoke, through exactly the path the
 * agent API uses (docs/mcp.md#the-hub-as-an-mcp-server). The client's idempotency key in `_meta`
 * becomes the invocation id, so the same key twice is one invocation; without one the call is
 * still governed, but a client's retry is then a second call. A `_meta` task id binds the call to
 * that task. Whatever is not `succeeded` comes back as an error result carrying the state, the
 * invocation id, the reason code and a sentence — never as a success.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  InvokeRequestSchema,
  type CreateRunRequest,
  type InvokeRequest,
  type Receipt,
} from '../../src-shared/hub-api.js';
import { newInvocationId } from '../../src-shared/invocation-id.js';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import { newId } from '../ids.js';
import { invoke, type InvokeOutcome } from '../invocations/invoke.js';
import { toReceipt } from '../invocations/receipt.js';
import { loadOwnInvocation, resume } from '../invocations/resume.js';
import {
  DECLARATION_REVISION_META,
  IDEMPOTENCY_KEY_META,
  INVOCATION_ID_META,
  STATE_META,
  TASK_ID_META,
} from '../mcp/meta-keys.js';
import type { RunRecord } from '../store/types.js';
import type { ExposedTool } from './tools.js';

type Meta = Record<string, unknown> | undefined;

const SENTENCES: Partial<Record<Receipt['state'], string>> = {
  succeeded: 'The business system completed the call.',
  failed: 'The business system refused or failed the call.',
  awaiting_approval:
    'The call needs approval and was not executed. Once an approver approves it, call bailing_resume with its invocation_id to run it (once).',
  approved:
    'The call is approved and not executed yet; call bailing_resume with its invocation_id to run it (once).',
  denied: 'An approver denied the call; it was not executed.',
  not_dispatched: 'The Hub did not send the call: nothing was executed and nothing was spent.',
  dispatching: 'The call is being sent right now; call bailing_inspect later to see its outcome.',
  unknown:
    'The result needs checking: the business system may or may not have completed the call, and the Hub will not send it again. Call bailing_resume to check with the business system.',
  unverified:
    'The business system could not confirm whether the call ran; it was not sent again. An operator can check and settle it.',
};

export function receiptResult(receipt: Receipt, extra: Record<string, unknown> = {}): CallToolResult {
  const sentence = SENTENCES[receipt.state] ?? `The call is ${receipt.state}.`;
  const because = receipt.reason_message
    ? ` (${receipt.reason_code ?? 'reason'}: ${receipt.reason_message})`
    : '';
  const structured = {
    state: receipt.state,
    invocation_id: receipt.invocation_id,
    reason_code: receipt.reason_code,
    message: sentence + because,
    result: receipt.result,
    result_truncated: receipt.result_truncated,
    task_id: receipt.task_id,
    approval_id: receipt.approval?.approval_id ?? null,
    ...extra,
  };
  const ok = receipt.state === 'succeeded';
  return {
    isError: !ok,
    content: [
      {
        type: 'text',
        text: ok
          ? JSON.stringify(receipt.result ?? null)
          : `${sentence + because} [state: ${receipt.state}; invocation_id: ${receipt.invocation_id}${receipt.reason_code ? `; reason_code: ${receipt.reason_code}` : ''}]`,
      },
    ],
    structuredContent: structured,
    _meta: { [INVOCATION_ID_META]: receipt.invocation_id, [STATE_META]: receipt.state },
  };
}

/** A refusal before any invocation existed (an unknown task, a changed declaration, …). */
export function refusedResult(code: string, message: string, invocationId: string | null): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: `Refused (${code}): ${message}` }],
    structuredContent: { state: 'refused', invocation_id: invocationId, reason_code: code, message },
  };
}

/**
 * The call's run. Its tool was found a moment ago among the client's tools (`exposedTools`: a
 * granted, unrevoked authorization of a system in service), and invoke reads the authorization, the
 * grant and the system again with its checks, the system under its lock: opening the run through
 * openRun (POST /agent/v1/runs) would read them once more for nothing. A revoke or a retire that
 * lands in between is refused by invoke with the code openRun would give (`authorization_revoked`,
 * `system_retired`), nothing stored but this run and nothing sent.
 */
async function openCallRun(ctx: HubContext, clientId: string, req: CreateRunRequest): Promise<string> {
  const run: RunRecord = {
    ...req,
    run_id: newId('run'),
    client_id: clientId,
    state: 'open',
    created_at: ctx.now().toISOString(),
    ended_at: null,
  };
  await ctx.store.createRun(run);
  return run.run_id;
}

const text = (v: unknown): string | undefined => (typeof v === 'string' && v.length > 0 ? v : undefined);

export async function callGoverned(
  ctx: HubContext,
  clientId: string,
  exposed: ExposedTool,
  args: Record<string, unknown>,
  meta: Meta,
): Promise<CallToolResult> {
  const key = text(meta?.[IDEMPOTENCY_KEY_META]);
  if (key !== undefined && !InvokeRequestSchema.shape.invocation_id.safeParse(key).success)
    return refusedResult(
      'invalid_request',
      `the idempotency key in _meta must be 8–128 visible ASCII characters`,
      null,
    );
  const invocationId = key ?? newInvocationId();
  try {
    const out = await invokeInItsRun(ctx, clientId, exposed, args, invocationId, meta);
    return receiptResult(out.receipt, { replayed: !out.created });
  } catch (err) {
    if (err instanceof HubError) return refusedResult(err.code, err.message, key ?? null);
    throw err;
  }
}

/**
 * The invoke of one tools/call, in the run of the invocation when the key names one of the
 * client's (a retry replays there), else in a run of its own that ends with the call, whatever
 * its outcome: later steps (bailing_resume, an approval) need the invocation, never an open run.
 * The same key arriving on two requests at once: both open a run, one creates the invocation, the
 * other's invoke sees it under another run (`invocation_conflict`) and replays it in its run —
 * one invocation, one write, both answered with it.
 */
async function invokeInItsRun(
  ctx: HubContext,
  clientId: string,
  exposed: ExposedTool,
  args: Record<string, unknown>,
  invocationId: string,
  meta: Meta,
): Promise<InvokeOutcome> {
  const d = exposed.declaration;
  const taskId = text(meta?.[TASK_ID_META]);
  const request = (runId: string, declarationRevision: string): InvokeRequest => ({
    invocation_id: invocationId,
    run_id: runId,
    authorization_ref: d.authorization_ref,
    tool: d.tool,
    declaration_revision: declarationRevision,
    arguments: args,
    host_call_id: `mcp:${invocationId}`,
    ...(taskId ? { task_id: taskId } : {}),
  });
  const ownInvocation = async () => {
    const existing = await ctx.store.getInvocation(invocationId);
    return existing && existing.client_id === clientId ? existing : null;
  };
  const own = await ownInvocation();
  if (own) return invoke(ctx, clientId, request(own.run_id, own.declaration_revision));

  const runId = await openCallRun(ctx, clientId, {
    agent_session_id: taskId ? `mcp-task:${taskId}` : `mcp:${invocationId}`,
    turn_id: `mcp:${invocationId}`,
    authorization_ref: d.authorization_ref,
  });
  try {
    return await invoke(
      ctx,
      clientId,
      request(runId, text(meta?.[DECLARATION_REVISION_META]) ?? d.declaration_revision),
    );
  } catch (err) {
    if (err instanceof HubError && err.code === 'invocation_conflict') {
      const raced = await ownInvocation();
      if (raced && raced.run_id !== runId)
        return await invoke(ctx, clientId, request(raced.run_id, raced.declaration_revision));
    }
    throw err;
  } finally {
    await endCallRun(ctx, runId);
  }
}

/** Ending the call's run never changes the call's answer: a failure is logged by its code. */
async function endCallRun(ctx: HubContext, runId: string): Promise<void> {
  try {
    await ctx.store.endRun(runId, ctx.now().toISOString());
  } catch (err) {
    ctx.logger.warn(
      { run_id: runId, code: err instanceof HubError ? err.code : 'store_error' },
      'the run of an /mcp call could not be ended; it stays open',
    );
  }
}

export async function inspectCall(
  ctx: HubContext,
  clientId: string,
  invocationId: string,
): Promise<CallToolResult> {
  try {
    const rec = await loadOwnInvocation(ctx, clientId, invocationId);
    const approval = rec.approval_id ? await ctx.store.getApproval(rec.approval_id) : null;
    return receiptResult(toReceipt(rec, approval));
  } catch (err) {
    if (err instanceof HubError) return refusedResult(err.code, err.message, invocationId);
    throw err;
  }
}

export async function resumeCall(
  ctx: HubContext,
  clientId: string,
  invocationId: string,
): Promise<CallToolResult> {
  try {
    const r = await resume(ctx, clientId, invocationId);
    return receiptResult(r.receipt, { action: r.action });
  } catch (err) {
    if (err instanceof HubError) return refusedResult(err.code, err.message, invocationId);
    throw err;
  }
}
