// The MCP server of bench:mcp, built with the official SDK: one write tool, add_note, that keeps
// the notes in memory. `node mcp-bench-server.mjs stdio` serves stdio; `... http` serves
// Streamable HTTP on 127.0.0.1 (a free port, printed as the first line) with one session each.
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

let notes = 0;
const build = () => {
  const server = new McpServer({ name: 'bench-notes', version: '1.0.0' });
  server.registerTool(
    'add_note',
    {
      description: 'Adds a note',
      inputSchema: { note: z.string() },
      annotations: { readOnlyHint: false, destructiveHint: false, openWorldHint: false },
    },
    async ({ note }) => {
      notes += 1;
      return { content: [{ type: 'text', text: `note ${notes}: ${note}` }] };
    },
  );
  return server;
};

if (process.argv[2] === 'http') {
  const sessions = new Map();
  const http = createServer(async (req, res) => {
    let text = '';
    for await (const chunk of req) text += chunk;
    const body = text ? JSON.parse(text) : undefined;
    const sid = req.headers['mcp-session-id'];
    let t = typeof sid === 'string' ? sessions.get(sid) : undefined;
    if (!t) {
      t = new StreamableHTTPServerTransport({
        sessionIdGenerator: () => randomUUID(),
        enableJsonResponse: true,
        onsessioninitialized: (id) => sessions.set(id, t),
      });
      await build().connect(t);
    }
    await t.handleRequest(req, res, body);
  });
  http.listen(0, '127.0.0.1', () => console.log(`http://127.0.0.1:${http.address().port}/mcp`));
} else {
  await build().connect(new StdioServerTransport());
}
