/**
 * `tools/list`, every page, bounded: at most `maxTools` tools over at most `maxPages` pages, within
 * one overall deadline; a cursor seen twice is a loop. The answer is taken as raw JSON here (the
 * SDK still frames and parses the message) so each tool can be judged on its own by compile.ts.
 */
import { z } from 'zod';
import type { McpConnection } from './connect.js';

export interface ListLimits {
  maxTools: number;
  maxPages: number;
  timeoutMs: number;
}

const ListPageSchema = z.looseObject({
  tools: z.array(z.unknown()),
  nextCursor: z.string().max(4096).optional(),
});

export type ListOutcome =
  { ok: true; tools: unknown[] } | { ok: false; code: 'unreachable' | 'invalid'; message: string };

export async function listAllTools(conn: McpConnection, limits: ListLimits): Promise<ListOutcome> {
  if (!conn.capabilities.tools) return { ok: true, tools: [] };
  const deadline = Date.now() + limits.timeoutMs;
  const tools: unknown[] = [];
  const cursors = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; ; page++) {
    if (page >= limits.maxPages) {
      return {
        ok: false,
        code: 'invalid',
        message: `tools/list has more than ${limits.maxPages} pages (tools_too_many)`,
      };
    }
    const left = deadline - Date.now();
    if (left <= 0)
      return {
        ok: false,
        code: 'unreachable',
        message: `tools/list did not finish in ${limits.timeoutMs} ms`,
      };
    let answer: z.infer<typeof ListPageSchema>;
    try {
      answer = await conn.client.request(
        { method: 'tools/list', params: cursor === undefined ? {} : { cursor } },
        ListPageSchema,
        { timeout: left },
      );
    } catch (err) {
      if (err instanceof z.ZodError)
        return { ok: false, code: 'invalid', message: `tools/list answer is not valid MCP: ${err.message}` };
      return { ok: false, code: 'unreachable', message: `tools/list failed: ${(err as Error).message}` };
    }
    tools.push(...answer.tools);
    if (tools.length > limits.maxTools) {
      return {
        ok: false,
        code: 'invalid',
        message: `the server lists more than ${limits.maxTools} tools (tools_too_many)`,
      };
    }
    if (answer.nextCursor === undefined) return { ok: true, tools };
    if (cursors.has(answer.nextCursor))
      return { ok: false, code: 'invalid', message: 'tools/list repeats a cursor (a paging loop)' };
    cursors.add(answer.nextCursor);
    cursor = answer.nextCursor;
  }
}
