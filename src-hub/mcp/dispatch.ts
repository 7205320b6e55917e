/**
 * Dispatches one recorded `dispatching` call to its MCP server: the supervisor's connection (or one
 * made now, within the call's timeout — if none can be made the call never left), then one
 * `tools/call` (call.ts).
 */
import { isMcpOperation } from '../acc/types.js';
import type { HubContext, SendResult } from '../context.js';
import type { InvocationRecord, SystemRecord } from '../store/types.js';
import { callMcpTool } from './call.js';

export async function dispatchMcp(
  ctx: HubContext,
  system: SystemRecord,
  rec: InvocationRecord,
  onTaskCreated: (taskId: string) => Promise<void>,
): Promise<SendResult> {
  const op = rec.operation;
  if (!isMcpOperation(op))
    return { kind: 'not_sent', reason: 'invalid_request', detail: 'the stored operation is not an MCP tool' };
  if (!ctx.mcp)
    return {
      kind: 'not_sent',
      reason: 'not_connected',
      detail: 'this process does not connect to MCP servers',
    };
  const conn = await ctx.mcp.connectionFor(
    system,
    Math.min(op.timeout_ms, ctx.settings.mcpInitializeTimeoutMs),
  );
  if ('notConnected' in conn)
    return {
      kind: 'not_sent',
      reason: 'not_connected',
      detail: `the MCP server is not connected (${conn.notConnected})`,
    };
  return callMcpTool({
    conn,
    op,
    args: rec.arguments,
    idempotencyKey: rec.invocation_id,
    timeoutMs: op.timeout_ms,
    signal: ctx.shutdown,
    serverTasks: conn.capabilities.tasks?.requests?.tools?.call !== undefined,
    onTaskCreated,
    stdio: system.mcp?.transport === 'stdio',
  });
}
