/** Readers over the Hub's audit and the business systems' records that scenarios assert on. */
import type { AuditEntryLike, Stack, SystemId } from '../../harness/stack.js';
import type { LedgerEntry } from '../../../demo/types.js';

export interface ReceiptLike {
  invocation_id: string;
  state: string;
  dispatch: string;
  tool: string;
  authorization_ref: string;
  run_id: string;
  task_id: string | null;
  declaration_revision: string;
  reason_code: string | null;
  approval: { state: string } | null;
}

export async function receipt(stack: Stack, id: string): Promise<ReceiptLike | null> {
  try {
    return await stack.admin<ReceiptLike>('GET', `/admin/v1/invocations/${encodeURIComponent(id)}`);
  } catch (err) {
    if (/HTTP 404/.test((err as Error).message)) return null;
    throw err;
  }
}

/** Audit entries about invocations, grouped by invocation id, in order. */
export async function auditByInvocation(stack: Stack): Promise<Map<string, AuditEntryLike[]>> {
  const out = new Map<string, AuditEntryLike[]>();
  for (const e of await stack.audit()) {
    if (!e.invocation_id) continue;
    const list = out.get(e.invocation_id) ?? [];
    list.push(e);
    out.set(e.invocation_id, list);
  }
  return out;
}

/** How many business operation requests carried this idempotency key (all systems). */
export async function dispatchCount(stack: Stack, key: string): Promise<number> {
  let n = 0;
  for (const s of ['shop-a', 'shop-b', 'inventory'] as SystemId[]) {
    n += (await stack.requests(s)).filter((r) => r.kind === 'operation' && r.idempotency_key === key).length;
  }
  return n;
}

export function targetsOf(ledger: LedgerEntry[]): string[] {
  return ledger.map((e) => e.target);
}

export async function searchCount(stack: Stack): Promise<number> {
  const m = await stack.metrics();
  let n = 0;
  for (const c of Object.values(m.clients)) n += c.requests['POST /agent/v1/tools/search'] ?? 0;
  return n;
}

export async function requestTotals(stack: Stack): Promise<Record<string, number>> {
  const m = await stack.metrics();
  const out: Record<string, number> = {};
  for (const c of Object.values(m.clients))
    for (const [k, v] of Object.entries(c.requests)) out[k] = (out[k] ?? 0) + v;
  return out;
}
