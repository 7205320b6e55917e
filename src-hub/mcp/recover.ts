/**
 * What an MCP server can say about a call whose answer was lost (docs/mcp.md#recovery), asked in
 * this order and never by calling the tool again:
 *   1. the tool's declared look-up tool — a read-only tool of the same server called with
 *      `{"idempotency_key": <invocation id>}` that answers `{"status": "succeeded" | "failed" |
 *      "not_found", "result"?}` (as structured content, or as the JSON text of its first content);
 *   2. the MCP task the call ran as (its id was saved with the answer that carried it): `tasks/get`,
 *      and `tasks/result` once it ended;
 *   3. otherwise nothing can be asked: `unsupported`.
 */
import { CallToolResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import { MCP_LOOKUP_STATUSES, type EvidenceCheckOutcome } from '../../src-shared/states.js';
import { isMcpOperation } from '../acc/types.js';
import type { HubContext } from '../context.js';
import type { InvocationRecord, SystemRecord } from '../store/types.js';
import { keepResult } from './result-bounds.js';

export type McpRecovery =
  | {
      source: 'lookup_tool' | 'task_status';
      outcome: Extract<EvidenceCheckOutcome, 'succeeded' | 'failed'>;
      result: unknown;
      evidence_digest: string;
      detail: string;
    }
  | {
      source: 'lookup_tool' | 'task_status' | 'none';
      outcome: Exclude<EvidenceCheckOutcome, 'succeeded' | 'failed'>;
      detail: string;
    };

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** The look-up tool's answer: from structured content, else the JSON text of its first text content. */
function lookupAnswer(result: {
  structuredContent?: unknown;
  content?: unknown;
}): Record<string, unknown> | null {
  if (isObject(result.structuredContent)) return result.structuredContent;
  const first = Array.isArray(result.content) ? (result.content[0] as unknown) : undefined;
  if (isObject(first) && first.type === 'text' && typeof first.text === 'string') {
    try {
      const v = JSON.parse(first.text) as unknown;
      return isObject(v) ? v : null;
    } catch {
      return null;
    }
  }
  return null;
}

export async function recoverMcp(
  ctx: HubContext,
  system: SystemRecord,
  rec: InvocationRecord,
): Promise<McpRecovery> {
  const op = rec.operation;
  const lookup = isMcpOperation(op) ? op.mcp.lookup_tool : null;
  if (lookup === null && !rec.remote_task_id)
    return {
      source: 'none',
      outcome: 'unsupported',
      detail:
        'the MCP server offers no look-up tool for this tool and the call did not run as an MCP task: nothing can show whether it ran (it was not called again)',
    };
  const source = lookup !== null ? 'lookup_tool' : 'task_status';
  if (!ctx.mcp)
    return { source, outcome: 'unavailable', detail: 'this process does not connect to MCP servers' };
  const conn = await ctx.mcp.connectionFor(system, ctx.settings.mcpInitializeTimeoutMs);
  if ('notConnected' in conn)
    return {
      source,
      outcome: 'unavailable',
      detail: `the MCP server is not connected (${conn.notConnected})`,
    };
  const timeout = ctx.settings.lookupTimeoutMs;
  try {
    if (lookup !== null) {
      const r = await conn.client.request(
        { method: 'tools/call', params: { name: lookup, arguments: { idempotency_key: rec.invocation_id } } },
        CallToolResultSchema,
        { timeout, signal: ctx.shutdown },
      );
      const answer = r.isError ? null : lookupAnswer(r);
      const status = answer?.status;
      if (typeof status !== 'string' || !(MCP_LOOKUP_STATUSES as readonly string[]).includes(status))
        return {
          source,
          outcome: 'unavailable',
          detail: `the look-up tool ${lookup} gave no usable answer${r.isError ? ' (isError)' : ''}`,
        };
      if (status === 'not_found')
        return {
          source,
          outcome: 'not_found',
          detail: `the look-up tool ${lookup} has no record of this idempotency key; that alone does not prove the call never ran`,
        };
      const kept = keepResult(answer?.result ?? null);
      return {
        source,
        outcome: status === 'succeeded' ? 'succeeded' : 'failed',
        result: kept.result,
        evidence_digest: sha256Hex(canonicalJson(answer)),
        detail: `the look-up tool ${lookup} reports the call ${status}`,
      };
    }
    const taskId = rec.remote_task_id!;
    const task = await conn.client.experimental.tasks.getTask(taskId, { timeout, signal: ctx.shutdown });
    if (task.status === 'working' || task.status === 'input_required')
      return { source, outcome: 'pending', detail: `MCP task ${taskId} is still ${task.status}` };
    if (task.status === 'cancelled')
      return {
        source,
        outcome: 'unavailable',
        detail: `MCP task ${taskId} was cancelled; what it did before is not known`,
      };
    const result = await conn.client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema, {
      timeout,
      signal: ctx.shutdown,
    });
    const kept = keepResult(result);
    const failed = result.isError === true || task.status === 'failed';
    return {
      source,
      outcome: failed ? 'failed' : 'succeeded',
      result: kept.result,
      evidence_digest: sha256Hex(canonicalJson(kept.result)),
      detail: `MCP task ${taskId} ${failed ? 'failed' : 'completed'}`,
    };
  } catch (err) {
    return {
      source,
      outcome: 'unavailable',
      detail: `the server could not be asked: ${(err as Error).message}`,
    };
  }
}
