/** Declarations (what the model sees) and ranked tool search across a client's authorizations. */
import type { Declaration, ToolSearchRequest, ToolSearchResponse } from '../../src-shared/hub-api.js';
import { modelGuidance } from '../acc/guidance.js';
import type { HubContext } from '../context.js';
import type { AuthorizationRecord, OperationRecord, SystemRecord } from '../store/types.js';

export function toDeclaration(
  hubId: string,
  auth: AuthorizationRecord,
  sys: SystemRecord,
  op: OperationRecord,
): Declaration {
  const o = op.operation;
  return {
    hub_id: hubId,
    authorization_ref: auth.authorization_ref,
    system_id: sys.system_id,
    system_name: sys.name,
    account: auth.account,
    tool: o.tool,
    description: o.description,
    input_schema: o.input_schema,
    effect: o.effect,
    side_effect: o.side_effect,
    risk_level: o.risk_level,
    approval: {
      required: o.approval.required || o.risk_level === 'high',
      prompt: o.approval.prompt,
      when: o.approval.when,
    },
    idempotent: o.idempotent,
    timeout_ms: o.timeout_ms,
    scope: o.scope,
    audit_sensitive: o.audit_sensitive,
    guidance: o.guidance,
    model_guidance: modelGuidance(o),
    declaration_revision: op.declaration_revision,
    system_kind: sys.kind,
  };
}

/** The search words of free text (letters and digits, lower case, at most 32); the store ORs them as prefix terms. */
export function searchWords(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).slice(0, 32);
}

export async function searchTools(
  ctx: HubContext,
  clientId: string,
  req: ToolSearchRequest,
): Promise<ToolSearchResponse> {
  const limit = req.limit ?? 10;
  const offset = req.offset ?? 0;
  // one more than the page, to tell whether there is a next one
  const wanted = offset + limit + 1;
  let auths = (await ctx.store.listAuthorizations(clientId)).filter((a) => a.state !== 'revoked');
  if (req.authorization_refs) {
    const wanted = new Set(req.authorization_refs);
    auths = auths.filter((a) => wanted.has(a.authorization_ref));
  }
  const systemIds = [...new Set(auths.map((a) => a.system_id))];
  const words = searchWords(req.query);
  const hits = words.length
    ? await ctx.store.searchOperations(words, systemIds, wanted * 4)
    : (await ctx.store.currentOperations(systemIds)).map((op) => ({ op, score: 0 }));
  const systems = new Map<string, SystemRecord>();
  for (const id of systemIds) {
    const s = await ctx.store.getSystem(id);
    // a retired system is in no catalogue (docs/hub-api.md "Retiring a system")
    if (s && s.retired_at === null) systems.set(id, s);
  }
  const out: ToolSearchResponse['declarations'] = [];
  for (const hit of hits) {
    if (out.length >= wanted) break;
    const sys = systems.get(hit.op.system_id);
    if (!sys) continue;
    for (const auth of auths.filter((a) => a.system_id === hit.op.system_id)) {
      out.push({ ...toDeclaration(ctx.hubId, auth, sys, hit.op), score: hit.score });
    }
  }
  return { declarations: out.slice(offset, offset + limit), more: out.length > offset + limit };
}
