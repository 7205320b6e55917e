/**
 * The Hub as an MCP server: `POST /mcp` (Streamable HTTP, stateless, JSON answers), authenticated
 * with a client token like the agent API. Each request gets the SDK's server and transport; the
 * handlers list the client's governed tools (paged) and turn `tools/call` into a governed call
 * (call.ts). `GET /mcp` answers as the SDK does for a stateless server (no stream).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
} from '@modelcontextprotocol/sdk/types.js';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { HubContext } from '../context.js';
import { HubError } from '../errors.js';
import { type HubAuth, requireClientId } from '../http/auth.js';
import { HUB_MCP_VERSION } from '../mcp/catalog.js';
import { callGoverned, inspectCall, resumeCall } from './call.js';
import { exposedTools, INSPECT_TOOL, RECOVERY_TOOLS, RESUME_TOOL, toMcpTool } from './tools.js';

const cursorOf = (cursor: string | undefined): number => {
  if (cursor === undefined) return 0;
  if (!/^\d{1,9}$/.test(cursor)) throw new McpError(ErrorCode.InvalidParams, 'invalid cursor');
  return Number(cursor);
};

function buildServer(ctx: HubContext, clientId: string): Server {
  const server = new Server(
    { name: 'bailing-hub', version: HUB_MCP_VERSION },
    {
      capabilities: { tools: { listChanged: false } },
      instructions:
        'Governed business tools of the Bailing Hub: every call is checked against task budgets, pauses and approvals, and its honest outcome is returned (awaiting approval, refused, result needs checking). Put an idempotency key in _meta "dev.bailingdesk/idempotency_key" so a retry is never a second call.',
    },
  );
  const pageSize = ctx.settings.mcpEndpointPageSize;
  server.setRequestHandler(ListToolsRequestSchema, async (request) => {
    const from = cursorOf(request.params?.cursor);
    const all = [...RECOVERY_TOOLS, ...(await exposedTools(ctx, clientId)).map(toMcpTool)];
    const next = from + pageSize < all.length ? String(from + pageSize) : undefined;
    return { tools: all.slice(from, from + pageSize), ...(next ? { nextCursor: next } : {}) };
  });
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    const { name, arguments: args = {}, _meta: meta } = request.params;
    if (name === INSPECT_TOOL || name === RESUME_TOOL) {
      const id = (args as { invocation_id?: unknown }).invocation_id;
      if (typeof id !== 'string' || id.length < 8 || id.length > 128)
        throw new McpError(ErrorCode.InvalidParams, 'invocation_id must be a string of 8–128 characters');
      return name === INSPECT_TOOL ? inspectCall(ctx, clientId, id) : resumeCall(ctx, clientId, id);
    }
    const exposed = (await exposedTools(ctx, clientId)).find((t) => t.name === name);
    if (!exposed) throw new McpError(ErrorCode.InvalidParams, `no tool ${name} for this client`);
    return callGoverned(ctx, clientId, exposed, args, meta as Record<string, unknown> | undefined);
  });
  return server;
}

const hostnameOf = (value: string, withScheme: boolean): string | null => {
  try {
    return new URL(withScheme ? value : `http://${value}`).hostname;
  } catch {
    return null;
  }
};

/**
 * DNS-rebinding protection: a web page must not reach the endpoint through a name that resolves
 * to this machine, so the Host (and an Origin, when a browser sends one) must name an allowed host
 * (settings.mcpAllowedHosts: loopback by default), port aside.
 */
function hostGuard(allowed: readonly string[]) {
  return async (req: FastifyRequest) => {
    const host = hostnameOf(req.headers.host ?? '', false);
    if (host === null || !allowed.includes(host))
      throw new HubError(
        403,
        'forbidden',
        'the Host header does not name this Hub (DNS-rebinding protection)',
      );
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const o = hostnameOf(origin, true);
      if (o === null || !allowed.includes(o))
        throw new HubError(403, 'forbidden', 'the Origin header is not allowed (DNS-rebinding protection)');
    }
  };
}

export function registerMcpEndpoint(app: FastifyInstance, ctx: HubContext, auth: HubAuth): void {
  const handle = async (req: FastifyRequest, reply: FastifyReply) => {
    const clientId = requireClientId(req);
    const server = buildServer(ctx, clientId);
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  };
  const onRequest = [hostGuard(ctx.settings.mcpAllowedHosts), auth.client];
  app.post('/mcp', { onRequest }, handle);
  app.get('/mcp', { onRequest }, handle);
}
