/**
 * What an MCP server's answer means for the call (docs/mcp.md#outcomes): a result is `succeeded`;
 * a result with `isError: true` is `failed` (`business_rejected`: the server ran the tool and
 * reported an error; the permit stays spent). No answer is `unknown` (send.ts), never sent is
 * `not_dispatched` (send.ts).
 */
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { InvocationState } from '../../src-shared/states.js';
import type { SendResult } from '../context.js';
import type { InvocationPatch } from '../store/types.js';

export function mcpResultOutcome(
  result: Extract<SendResult, { kind: 'mcp_result' }>,
  at: string,
): { to: Extract<InvocationState, 'succeeded' | 'failed'>; patch: InvocationPatch } {
  const digest = sha256Hex(canonicalJson(result.result ?? null));
  const task = result.task_id ? ` (MCP task ${result.task_id})` : '';
  const base: InvocationPatch = {
    dispatch: 'confirmed',
    result: result.result ?? null,
    result_truncated: result.truncated,
    business_status: null,
    ...(result.task_id ? { remote_task_id: result.task_id } : {}),
  };
  if (!result.is_error)
    return {
      to: 'succeeded',
      patch: {
        ...base,
        reason_code: null,
        reason_message: null,
        add_evidence: {
          checked_at: at,
          source: 'dispatch_response',
          outcome: 'succeeded',
          http_status: null,
          evidence_digest: digest,
          detail: `the MCP server answered the call with a result${task}`,
        },
      },
    };
  return {
    to: 'failed',
    patch: {
      ...base,
      reason_code: 'business_rejected',
      reason_message: 'the MCP server ran the tool and reported an error (isError)',
      add_evidence: {
        checked_at: at,
        source: 'dispatch_response',
        outcome: 'failed',
        http_status: null,
        evidence_digest: digest,
        detail: `the MCP server answered the call with isError: true${task}`,
      },
    },
  };
}
