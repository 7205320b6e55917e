/**
 * The invariants of docs/design.md#invariants, checked over what the business systems, the Hub and the host recorded
 * (pure: the runner collects, this judges).
 *  - one id, one dispatch: no invocation id reached a business system twice (request logs by
 *    idempotency key), and no ledger holds a key twice;
 *  - enforced boundary: per task, ledger writes <= write budget, the Hub's writes_used <= budget,
 *    and writes_used never went down (a restart never replenishes a budget);
 *  - honest outcomes / visibility: every id a business system received is an invocation the Hub
 *    and/or the host journal knows, and the Hub never says "nothing was sent"
 *    (not_dispatched, awaiting_approval, approved, denied) for an id a system received.
 */
export interface SystemRecords {
  system: string;
  requests: { kind: string; idempotency_key: string | null; committed: boolean }[];
  ledger: { idempotency_key: string; operation: string }[];
}

export interface HubReceiptLike {
  invocation_id: string;
  state: string;
  task_id: string | null;
  effect: 'read' | 'write';
}

export interface TaskLike {
  task_id: string;
  writes_used: number;
  boundary: { write_budget: number };
}

export interface Observations {
  systems: SystemRecords[];
  /** Hub receipts by invocation id (ids the Hub does not know are absent). */
  receipts: Map<string, HubReceiptLike>;
  /** Invocation ids the host (journal / conversation) knows. */
  hostKnown: Set<string>;
  tasks: TaskLike[];
  /** Every writes_used value observed per task, in observation order. */
  writesUsedHistory: Map<string, number[]>;
}

export interface Violation {
  invariant: 'one_id_one_dispatch' | 'budget' | 'visibility';
  detail: string;
}

const SAYS_NOT_SENT = new Set(['not_dispatched', 'awaiting_approval', 'approved', 'denied']);

export function checkInvariants(o: Observations): Violation[] {
  const out: Violation[] = [];
  const received = new Map<string, number>();
  for (const s of o.systems) {
    for (const r of s.requests) {
      if (r.kind !== 'operation' || r.idempotency_key === null) continue;
      received.set(r.idempotency_key, (received.get(r.idempotency_key) ?? 0) + 1);
    }
    const inLedger = new Map<string, number>();
    for (const e of s.ledger) inLedger.set(e.idempotency_key, (inLedger.get(e.idempotency_key) ?? 0) + 1);
    for (const [key, n] of inLedger) {
      if (n > 1)
        out.push({ invariant: 'one_id_one_dispatch', detail: `${s.system} ledger holds ${key} ${n} times` });
    }
  }
  for (const [key, n] of received) {
    if (n > 1)
      out.push({ invariant: 'one_id_one_dispatch', detail: `${key} reached a business system ${n} times` });
  }

  const ledgerWritesByTask = new Map<string, number>();
  for (const s of o.systems) {
    for (const e of s.ledger) {
      const rec = o.receipts.get(e.idempotency_key);
      if (rec?.task_id) ledgerWritesByTask.set(rec.task_id, (ledgerWritesByTask.get(rec.task_id) ?? 0) + 1);
    }
  }
  for (const t of o.tasks) {
    const budget = t.boundary.write_budget;
    const written = ledgerWritesByTask.get(t.task_id) ?? 0;
    if (written > budget)
      out.push({
        invariant: 'budget',
        detail: `task ${t.task_id}: ${written} ledger writes > budget ${budget}`,
      });
    if (t.writes_used > budget)
      out.push({
        invariant: 'budget',
        detail: `task ${t.task_id}: Hub writes_used ${t.writes_used} > budget ${budget}`,
      });
    const hist = o.writesUsedHistory.get(t.task_id) ?? [];
    for (let i = 1; i < hist.length; i++) {
      const prev = hist[i - 1] ?? 0;
      const cur = hist[i] ?? 0;
      if (cur < prev)
        out.push({
          invariant: 'budget',
          detail: `task ${t.task_id}: writes_used went down ${prev} -> ${cur} (budget replenished)`,
        });
    }
  }

  for (const [key] of received) {
    const rec = o.receipts.get(key);
    if (!rec && !o.hostKnown.has(key)) {
      out.push({
        invariant: 'visibility',
        detail: `${key} reached a business system but neither the Hub nor the host knows it`,
      });
    }
    if (rec && SAYS_NOT_SENT.has(rec.state)) {
      out.push({
        invariant: 'visibility',
        detail: `${key} reached a business system but the Hub says ${rec.state}`,
      });
    }
  }
  return out;
}

/**
 * Proves the checker can fail: one planted breach of each invariant must be reported. The runner
 * calls this before it starts, so a checker that silently accepts everything stops the run.
 */
export function plantedViolationsDetected(): boolean {
  const systems: SystemRecords[] = [
    {
      system: 'shop-a',
      requests: [
        { kind: 'operation', idempotency_key: 'inv_dup_000001', committed: true },
        { kind: 'operation', idempotency_key: 'inv_dup_000001', committed: false },
        { kind: 'operation', idempotency_key: 'inv_ghost_0001', committed: true },
        { kind: 'operation', idempotency_key: 'inv_liar_00001', committed: true },
      ],
      ledger: [
        { idempotency_key: 'inv_dup_000001', operation: 'update_product_content' },
        { idempotency_key: 'inv_ghost_0001', operation: 'update_product_content' },
        { idempotency_key: 'inv_liar_00001', operation: 'update_product_content' },
      ],
    },
  ];
  const receipts = new Map<string, HubReceiptLike>([
    [
      'inv_dup_000001',
      { invocation_id: 'inv_dup_000001', state: 'succeeded', task_id: 'task_x', effect: 'write' },
    ],
    [
      'inv_liar_00001',
      { invocation_id: 'inv_liar_00001', state: 'not_dispatched', task_id: 'task_x', effect: 'write' },
    ],
  ]);
  const found = checkInvariants({
    systems,
    receipts,
    hostKnown: new Set(),
    tasks: [{ task_id: 'task_x', writes_used: 2, boundary: { write_budget: 1 } }],
    writesUsedHistory: new Map([['task_x', [2, 1]]]),
  });
  const has = (inv: Violation['invariant'], text: string) =>
    found.some((v) => v.invariant === inv && v.detail.includes(text));
  return (
    has('one_id_one_dispatch', 'inv_dup_000001 reached a business system 2 times') &&
    has('budget', 'ledger writes > budget 1') &&
    has('budget', 'writes_used 2 > budget 1') &&
    has('budget', 'went down') &&
    has('visibility', 'inv_ghost_0001') &&
    has('visibility', 'the Hub says not_dispatched')
  );
}
