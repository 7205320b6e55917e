/**
 * What an MCP client sees on the Hub's `/mcp` endpoint (docs/mcp.md#the-hub-as-an-mcp-server): the
 * client's declarations as MCP tools, plus `bailing_inspect` and `bailing_resume`. A tool keeps
 * its declared name when only one of the client's authorizations has it, else it is named
 * `<authorization_ref>.<tool>`; names are made of MCP's characters (others become `_`). The
 * annotations are derived from the declaration — the Hub's policy, not a server's hint.
 */
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Declaration } from '../../src-shared/hub-api.js';
import type { HubContext } from '../context.js';
import { DECLARATION_REVISION_META, META_PREFIX } from '../mcp/meta-keys.js';
import { toDeclaration } from '../systems/declarations.js';

export const INSPECT_TOOL = 'bailing_inspect';
export const RESUME_TOOL = 'bailing_resume';
const RESERVED = new Set([INSPECT_TOOL, RESUME_TOOL]);

export interface ExposedTool {
  name: string;
  declaration: Declaration;
}

const mcpName = (s: string) => s.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 128);

/** The client's governed tools under the names the endpoint gives them, sorted by name. */
export async function exposedTools(ctx: HubContext, clientId: string): Promise<ExposedTool[]> {
  const auths = (await ctx.store.listAuthorizations(clientId)).filter((a) => a.state !== 'revoked');
  const systemIds = [...new Set(auths.map((a) => a.system_id))];
  // a retired system's tools are not exposed (docs/hub-api.md "Retiring a system")
  const systems = new Map(
    (await ctx.store.listSystems()).filter((s) => s.retired_at === null).map((s) => [s.system_id, s]),
  );
  const declarations: Declaration[] = [];
  for (const op of await ctx.store.currentOperations(systemIds)) {
    const sys = systems.get(op.system_id);
    if (!sys) continue;
    for (const auth of auths.filter((a) => a.system_id === op.system_id))
      declarations.push(toDeclaration(ctx.hubId, auth, sys, op));
  }
  const count = new Map<string, number>();
  for (const d of declarations) count.set(d.tool, (count.get(d.tool) ?? 0) + 1);
  const out = new Map<string, ExposedTool>();
  for (const d of declarations) {
    const plain = count.get(d.tool) === 1 && !RESERVED.has(d.tool);
    const name = mcpName(plain ? d.tool : `${d.authorization_ref}.${d.tool}`);
    if (!out.has(name)) out.set(name, { name, declaration: d });
  }
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

export function toMcpTool(t: ExposedTool): Tool {
  const d = t.declaration;
  const needsApproval = d.approval.required;
  return {
    name: t.name,
    title: `${d.system_name}: ${d.tool}`,
    description:
      `${d.description}\n\n(${d.effect}, risk ${d.risk_level}` +
      `${needsApproval ? ', needs approval: the call comes back awaiting approval and runs only once approved and resumed' : ''}` +
      `; account ${d.account} on ${d.system_name})`,
    inputSchema: { ...d.input_schema, type: 'object' } as Tool['inputSchema'],
    annotations: {
      title: `${d.system_name}: ${d.tool}`,
      readOnlyHint: d.effect === 'read',
      destructiveHint: d.effect === 'write' && d.risk_level === 'high',
      idempotentHint: d.idempotent,
      openWorldHint: d.side_effect === 'external' || d.side_effect === 'notify',
    },
    _meta: {
      [DECLARATION_REVISION_META]: d.declaration_revision,
      [`${META_PREFIX}authorization_ref`]: d.authorization_ref,
      [`${META_PREFIX}tool`]: d.tool,
    },
  };
}

const invocationIdInput = (): Tool['inputSchema'] => ({
  type: 'object',
  properties: { invocation_id: { type: 'string', minLength: 8, maxLength: 128 } },
  required: ['invocation_id'],
  additionalProperties: false,
});

/** The two recovery calls: what became of a call, and resume it (never a second send). */
export const RECOVERY_TOOLS: Tool[] = [
  {
    name: INSPECT_TOOL,
    title: 'Inspect a governed call',
    description:
      'Shows what the Hub knows of one of your calls (its state, reason and result) without doing anything.',
    inputSchema: invocationIdInput(),
    annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  },
  {
    name: RESUME_TOOL,
    title: 'Resume a governed call',
    description:
      'Continues one of your calls: an approved call is sent (once), a call whose outcome is unknown is checked with the business system (never sent again). Anything else is returned unchanged.',
    inputSchema: invocationIdInput(),
    annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: true },
  },
];
