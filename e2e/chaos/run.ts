/**
 * npm run chaos -- [--runs N] [--minutes M] [--seed S] [--target host|hub|both] [--kill-window-ms W] [--keep] [--verbose]
 *
 * Many randomized runs of a scripted assignment (a task with a small write budget over both shops
 * and the inventory; reads and description writes through the governed path). In each run the
 * host or the Hub is SIGKILLed at a random point; it is then restarted on the same data, the
 * operator's explicit recovery is done (inspect every unresolved call, resume those whose result
 * needs checking and every saved fence, always with the original id; recovery must send no new
 * invoke), and the invariants of docs/design.md#invariants are checked over the
 * business systems' request logs and ledgers, the Hub's receipts and tasks, and the host's
 * journal (see invariants.ts). Prints runs, kills and violations; exits 1 on any violation.
 * The PRNG seed is printed first: `--seed` replays the same choices.
 */
import { parseArgs } from 'node:util';
import { connectReadyHost, type HostClient } from '../harness/host-client.js';
import { startStack, type Stack, SYSTEMS } from '../harness/stack.js';
import { assignmentScript, TASK_TOOLS } from './assignment.js';
import {
  checkInvariants,
  plantedViolationsDetected,
  type HubReceiptLike,
  type TaskLike,
  type Violation,
} from './invariants.js';
import { createPrng } from './prng.js';

interface Flags {
  runs: number;
  minutes: number;
  seed: number;
  target: 'host' | 'hub' | 'both';
  killWindowMs: number;
  keep: boolean;
  verbose: boolean;
}

function flags(): Flags {
  const { values } = parseArgs({
    options: {
      runs: { type: 'string', default: '20' },
      minutes: { type: 'string', default: '5' },
      seed: { type: 'string' },
      target: { type: 'string', default: 'both' },
      'kill-window-ms': { type: 'string', default: '2500' },
      keep: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      help: { type: 'boolean', default: false },
    },
    strict: true,
  });
  if (values.help) {
    console.log(
      'usage: npm run chaos -- [--runs 20] [--minutes 5] [--seed S] [--target host|hub|both] [--kill-window-ms 2500] [--keep] [--verbose]',
    );
    process.exit(0);
  }
  const num = (v: string | undefined, name: string, min: number) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number >= ${min}`);
    return n;
  };
  const target = values.target;
  if (target !== 'host' && target !== 'hub' && target !== 'both')
    throw new Error('--target must be host, hub or both');
  return {
    runs: Math.floor(num(values.runs, 'runs', 1)),
    minutes: num(values.minutes, 'minutes', 0.1),
    seed:
      values.seed === undefined
        ? Math.floor(Math.random() * 2 ** 31)
        : Math.floor(num(values.seed, 'seed', 0)),
    target,
    killWindowMs: Math.floor(num(values['kill-window-ms'], 'kill-window-ms', 0)),
    keep: values.keep ?? false,
    verbose: values.verbose ?? false,
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface SessionSummary {
  session_id: string;
  turn_running: boolean;
}
interface ConversationView {
  session: SessionSummary;
  items: { kind: string; invocation_id?: string | null }[];
}
interface UnresolvedItem {
  invocation_id: string;
  session_id: string;
  hub_state: string | null;
  journal_entry_state: string;
  can_inspect: boolean;
  can_resume: boolean;
}

async function adminTasks(stack: Stack): Promise<TaskLike[]> {
  return (await stack.admin<{ tasks: TaskLike[] }>('GET', '/admin/v1/tasks')).tasks;
}

/** Invoke requests the host sent to the Hub so far (through the harness's Hub proxy). */
const forwardedInvokes = (stack: Stack) =>
  stack.proxy.forwarded().filter((r) => r.method === 'POST' && r.path === '/agent/v1/invocations').length;

/** The Hub's receipt for an id (admin API), or null when the Hub does not know it. */
async function receipt(stack: Stack, id: string): Promise<HubReceiptLike | null> {
  try {
    return await stack.admin<HubReceiptLike>('GET', `/admin/v1/invocations/${encodeURIComponent(id)}`);
  } catch (err) {
    if (/HTTP 404/.test((err as Error).message)) return null;
    throw err;
  }
}

async function waitTurnIdle(
  client: HostClient,
  sessionId: string,
  timeoutMs: number,
): Promise<ConversationView> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const conv = await client.call<ConversationView>('getConversation', { session_id: sessionId });
    if (!conv.session.turn_running || Date.now() > deadline) return conv;
    await sleep(200);
  }
}

async function main(): Promise<void> {
  const f = flags();
  console.log(
    `chaos: seed ${f.seed} (replay with --seed ${f.seed}); up to ${f.runs} runs or ${f.minutes} min; kill target ${f.target}`,
  );
  if (!plantedViolationsDetected()) {
    console.error('chaos: the invariant checker missed planted violations; refusing to run.');
    process.exit(2);
  }
  const prng = createPrng(f.seed);
  const started = Date.now();
  const stack = await startStack({ name: 'chaos', keep: f.keep });
  const writesUsedHistory = new Map<string, number[]>();
  const hostKnown = new Set<string>();
  const sessions: string[] = [];
  const violations: Violation[] = [];
  let runs = 0;
  let kills = 0;
  let client: HostClient | null = null;
  const observeTasks = async () => {
    for (const t of await adminTasks(stack)) {
      const h = writesUsedHistory.get(t.task_id) ?? [];
      h.push(t.writes_used);
      writesUsedHistory.set(t.task_id, h);
    }
  };
  try {
    client = await connectReadyHost(await stack.startHost());
    while (runs < f.runs && Date.now() - started < f.minutes * 60_000) {
      const tag = `chaos-${f.seed}-${runs}`;
      const budget = prng.int(1, 4);
      const inFlight = prng.int(1, 3);
      const target = f.target === 'both' ? prng.pick(['host', 'hub'] as const) : f.target;
      const killAt = prng.int(0, f.killWindowMs);
      const fault = prng.chance(0.3) ? prng.pick(['shop-a', 'shop-b'] as const) : null;

      const task = await client.call<{ task_id: string }>('createTask', {
        title: tag,
        authorizations: Object.entries(TASK_TOOLS).map(([authorization_ref, tools]) => ({
          authorization_ref,
          tools: [...tools],
        })),
        write_budget: budget,
        in_flight_limit: inFlight,
        rate_limit: null,
        constraints: [],
      });
      const session = await client.call<SessionSummary>('createSession', {
        title: tag,
        authorization_refs: Object.keys(TASK_TOOLS),
        task_id: task.task_id,
      });
      sessions.push(session.session_id);
      stack.model.setScript(assignmentScript(tag));
      if (fault)
        await stack.setFault(fault, {
          operation: 'update_product_content',
          kind: 'drop_after_commit',
          times: 'once',
        });

      await client.call('sendMessage', {
        session_id: session.session_id,
        text: `Please do assignment ${tag}.`,
      });
      await sleep(killAt);
      await observeTasks();
      kills++;
      if (target === 'host') {
        await stack.killHost();
        client.close();
        client = await connectReadyHost(await stack.startHost());
      } else {
        await stack.killHub();
        await stack.startHub();
      }
      await observeTasks();
      const conv = await waitTurnIdle(client, session.session_id, 30_000);

      // The operator's explicit recovery: inspect every unresolved call of this run, resume the
      // ones whose result needs checking (original id only).
      const unresolved = (await client.call<{ items: UnresolvedItem[] }>('listUnresolved')).items.filter(
        (i) => i.session_id === session.session_id,
      );
      for (const u of unresolved) {
        if (u.can_inspect)
          await client
            .call('inspectInvocation', { session_id: u.session_id, invocation_id: u.invocation_id })
            .catch(() => undefined);
      }
      const invokesBeforeRecovery = forwardedInvokes(stack);
      for (const u of unresolved) {
        const needsChecking = u.can_resume && (u.hub_state === 'unknown' || u.hub_state === null);
        // A saved fence the Hub may never have seen: an explicit resume of the original id (docs/design.md#resume).
        const fence = u.journal_entry_state === 'pending_dispatch';
        if (needsChecking || fence) {
          await client
            .call('resumeInvocation', { session_id: u.session_id, invocation_id: u.invocation_id })
            .catch(() => undefined);
        }
      }
      const recoveryInvokes = forwardedInvokes(stack) - invokesBeforeRecovery;
      void conv;
      for (const s of sessions) {
        const c = await client.call<ConversationView>('getConversation', { session_id: s });
        for (const it of c.items) if (it.invocation_id) hostKnown.add(it.invocation_id);
      }
      for (const u of (await client.call<{ items: UnresolvedItem[] }>('listUnresolved')).items)
        hostKnown.add(u.invocation_id);
      if (fault) await stack.clearFaults(fault);
      await observeTasks();

      // Collect and judge everything so far.
      const systems = await Promise.all(
        SYSTEMS.map(async (system) => ({
          system,
          requests: await stack.requests(system),
          ledger: await stack.ledger(system),
        })),
      );
      const ids = new Set<string>();
      for (const s of systems)
        for (const r of s.requests)
          if (r.kind === 'operation' && r.idempotency_key) ids.add(r.idempotency_key);
      const receipts = new Map<string, HubReceiptLike>();
      for (const id of ids) {
        const r = await receipt(stack, id);
        if (r) receipts.set(id, r);
      }
      const found = checkInvariants({
        systems,
        receipts,
        hostKnown,
        tasks: await adminTasks(stack),
        writesUsedHistory,
      });
      if (recoveryInvokes > 0)
        found.push({
          invariant: 'one_id_one_dispatch',
          detail: `run ${tag}: recovery sent ${recoveryInvokes} new invoke(s) instead of inspect/resume`,
        });
      const fresh = found.filter((v) => !violations.some((o) => o.detail === v.detail));
      violations.push(...fresh);
      runs++;
      const t = (await adminTasks(stack)).find((x) => x.task_id === task.task_id);
      console.log(
        `run ${runs}: killed ${target} at ${killAt} ms, budget ${budget}, in-flight ${inFlight}${fault ? `, drop_after_commit on ${fault}` : ''}; ` +
          `writes_used ${t?.writes_used ?? '?'}; unresolved after reopen ${unresolved.length}; violations ${fresh.length}`,
      );
      for (const v of fresh) console.log(`  VIOLATION [${v.invariant}] ${v.detail}`);
      if (f.verbose)
        for (const u of unresolved)
          console.log(`  unresolved ${u.invocation_id} hub=${u.hub_state} journal=${u.journal_entry_state}`);
    }
  } finally {
    client?.close();
    await stack.close();
  }
  console.log(
    `chaos: ${runs} runs, ${kills} kills, ${violations.length} violations (seed ${f.seed}, ${Math.round((Date.now() - started) / 1000)} s)`,
  );
  if (violations.length > 0 || runs === 0) process.exit(1);
}

main().catch((err: unknown) => {
  console.error(`chaos: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(2);
});
