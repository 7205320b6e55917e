/**
 * Sends one governed `tools/call` to an MCP server, once, and says what is known afterwards
 * (docs/mcp.md#outcomes). The Hub's invocation id travels as the idempotency key in `_meta`. The
 * call has the declaration's timeout and the Hub's shutdown signal; on either the SDK sends
 * `notifications/cancelled` and the call's outcome is unknown (the server may have completed it).
 *
 * A tool the server runs as an MCP task (`execution.taskSupport`) is called task-augmented: the
 * task id of the answer is handed to `onTaskCreated` — which saves it — before the Hub polls
 * `tasks/get` and reads `tasks/result`, within the same deadline. Nothing is ever sent twice.
 */
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  ErrorCode,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import { MCP_TASK_END_STATUSES } from '../../src-shared/states.js';
import type { McpOperation } from '../acc/types.js';
import type { McpConnection } from './connect.js';
import { IDEMPOTENCY_KEY_META } from './meta-keys.js';
import { neverLeft } from './observed-transport.js';
import { keepResult } from './result-bounds.js';

export type McpNoResponseReason = 'timeout' | 'connection_lost' | 'server_exited' | 'aborted';

export type McpCallResult =
  | { kind: 'mcp_result'; is_error: boolean; result: unknown; truncated: boolean; task_id: string | null }
  | { kind: 'no_response'; reason: McpNoResponseReason; detail: string }
  | { kind: 'not_sent'; reason: 'not_connected' | 'aborted'; detail: string };

export interface McpCallInput {
  conn: McpConnection;
  op: McpOperation;
  args: Record<string, unknown>;
  idempotencyKey: string;
  timeoutMs: number;
  signal?: AbortSignal;
  /** Whether the server speaks MCP tasks for tools/call (its capabilities). */
  serverTasks: boolean;
  /** The task id of a task-augmented call: resolved once it is saved (before any further request). */
  onTaskCreated?: (taskId: string) => Promise<void>;
  /** stdio servers: a lost connection means the process exited. */
  stdio: boolean;
}

const TERMINAL: ReadonlySet<string> = new Set(MCP_TASK_END_STATUSES);

function noAnswer(err: unknown, input: McpCallInput, deadlinePassed: boolean): McpCallResult {
  if (input.signal?.aborted)
    return {
      kind: 'no_response',
      reason: 'aborted',
      detail: 'the Hub was shutting down; the request had left',
    };
  if (deadlinePassed || (err instanceof McpError && err.code === ErrorCode.RequestTimeout))
    return {
      kind: 'no_response',
      reason: 'timeout',
      detail: `no answer within ${input.timeoutMs} ms; the Hub sent notifications/cancelled, the server may still have completed it`,
    };
  if (err instanceof McpError && err.code === ErrorCode.ConnectionClosed)
    return {
      kind: 'no_response',
      reason: input.stdio ? 'server_exited' : 'connection_lost',
      detail: input.stdio
        ? 'the server process exited while the call was in flight'
        : 'the connection to the server closed while the call was in flight',
    };
  return { kind: 'no_response', reason: 'connection_lost', detail: `no answer: ${(err as Error).message}` };
}

export async function callMcpTool(input: McpCallInput): Promise<McpCallResult> {
  const { conn, op } = input;
  if (!conn.isOpen())
    return { kind: 'not_sent', reason: 'not_connected', detail: 'the server is not connected' };
  if (input.signal?.aborted)
    return { kind: 'not_sent', reason: 'aborted', detail: 'the Hub is shutting down' };
  const asTask =
    op.mcp.task_support === 'required' || (op.mcp.task_support === 'optional' && input.serverTasks);
  const deadline = Date.now() + input.timeoutMs;
  const params = {
    name: op.mcp.name,
    arguments: input.args,
    _meta: { [IDEMPOTENCY_KEY_META]: input.idempotencyKey },
  };
  conn.transport.watch(input.idempotencyKey);
  let first: unknown;
  try {
    first = asTask
      ? await conn.client.request({ method: 'tools/call', params }, CreateTaskResultSchema, {
          timeout: input.timeoutMs,
          signal: input.signal,
          task: { ttl: Math.max(input.timeoutMs, 60_000) * 10 },
        })
      : await conn.client.request({ method: 'tools/call', params }, CallToolResultSchema, {
          timeout: input.timeoutMs,
          signal: input.signal,
        });
  } catch (err) {
    const fate = conn.transport.fate(input.idempotencyKey);
    if (!fate.handed)
      return {
        kind: 'not_sent',
        reason: input.signal?.aborted ? 'aborted' : 'not_connected',
        detail: `the request was never handed to the connection (${(err as Error).message})`,
      };
    if (fate.error !== null && neverLeft(fate.error))
      return {
        kind: 'not_sent',
        reason: 'not_connected',
        detail: `the request could not be delivered: ${(fate.error as Error).message}`,
      };
    return noAnswer(err, input, Date.now() >= deadline);
  }
  conn.transport.fate(input.idempotencyKey);
  if (!asTask) {
    const r = first as { isError?: boolean };
    const kept = keepResult(first);
    return {
      kind: 'mcp_result',
      is_error: r.isError === true,
      result: kept.result,
      truncated: kept.truncated,
      task_id: null,
    };
  }
  const taskId = (first as { task: { taskId: string; status: string } }).task.taskId;
  await input.onTaskCreated?.(taskId);
  return followTask(input, taskId, deadline);
}

/** Polls the task until it ends or the deadline passes, then reads its result. */
async function followTask(input: McpCallInput, taskId: string, deadline: number): Promise<McpCallResult> {
  const tasks = input.conn.client.experimental.tasks;
  try {
    for (;;) {
      const left = deadline - Date.now();
      if (left <= 0) return noAnswer(null, input, true);
      const task = await tasks.getTask(taskId, { timeout: left, signal: input.signal });
      if (TERMINAL.has(task.status)) {
        if (task.status === 'cancelled')
          return {
            kind: 'no_response',
            reason: 'connection_lost',
            detail: `the server cancelled task ${taskId}; what it did before is not known`,
          };
        const result = await tasks.getTaskResult(taskId, CallToolResultSchema, {
          timeout: Math.max(1, deadline - Date.now()),
          signal: input.signal,
        });
        const kept = keepResult(result);
        return {
          kind: 'mcp_result',
          is_error: result.isError === true || task.status === 'failed',
          result: kept.result,
          truncated: kept.truncated,
          task_id: taskId,
        };
      }
      const wait = Math.min(
        Math.max(task.pollInterval ?? 500, 50),
        5_000,
        Math.max(0, deadline - Date.now()),
      );
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  } catch (err) {
    return noAnswer(err, input, Date.now() >= deadline);
  }
}
