/**
 * `tools/call` on the Hub's `/mcp` endpoint = a run plus an invoke, through exactly the path the
 * agent API uses (docs/mcp.md#the-hub-as-an-mcp-server). The client's idempotency key in `_meta`
 * becomes the invocation id, so the same key twice is one invocation; without one the call is
 * still governed, but a client's retry is then a second call. A `_meta` task id binds the call to
 * that task. Whatever is not `succeeded` comes back as an error result carrying the state, the
 * invocation id, the reason code and a sentence — never as a success.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { InvokeRequestSchema, type CreateRunRequest, type Receipt } from '../../src-shared/hub-api.js';
import { newInvocationId } from '../../src-shared/invocation-id.js';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import { newId } from '../ids.js';
import { invoke } from '../invocations/invoke.js';
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
  const d = exposed.declaration;
  const key = text(meta?.[IDEMPOTENCY_KEY_META]);
  if (key !== undefined && !InvokeRequestSchema.shape.invocation_id.safeParse(key).success)
    return refusedResult(
      'invalid_request',
      `the idempotency key in _meta must be 8–128 visible ASCII characters`,
      null,
    );
  const invocationId = key ?? newInvocationId();
  const taskId = text(meta?.[TASK_ID_META]);
  try {
    const existing = await ctx.store.getInvocation(invocationId);
    const own = existing && existing.client_id === clientId ? existing : null;
    const runId =
      own?.run_id ??
      (await openCallRun(ctx, clientId, {
        agent_session_id: taskId ? `mcp-task:${taskId}` : `mcp:${invocationId}`,
        turn_id: `mcp:${invocationId}`,
        authorization_ref: d.authorization_ref,
      }));
    const out = await invoke(ctx, clientId, {
      invocation_id: invocationId,
      run_id: runId,
      authorization_ref: d.authorization_ref,
      tool: d.tool,
      declaration_revision:
        own?.declaration_revision ?? text(meta?.[DECLARATION_REVISION_META]) ?? d.declaration_revision,
      arguments: args,
      host_call_id: `mcp:${invocationId}`,
      ...(taskId ? { task_id: taskId } : {}),
    });
    return receiptResult(out.receipt, { replayed: !out.created });
  } catch (err) {
    if (err instanceof HubError) return refusedResult(err.code, err.message, key ?? null);
    throw err;
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
