/**
 * The load generator, in a process of its own so the figures are the Hub's, not the generator's
 * (started by loadgen-client.ts with an IPC channel). Each message is one job: governed calls to
 * one or more Hub instances (round-robin), signed calls straight to a business system, or permit
 * transactions straight against a store. It answers the per-call latencies and the wall time.
 */
import { randomUUID } from 'node:crypto';
import { Agent, request } from 'node:http';
import type { CompiledOperation } from '../../src-hub/acc/types.js';
import { buildRequest, sendSigned } from '../../src-hub/dispatch/index.js';
import { benchInvocationId } from './invocation-ids.js';
import { runPermitJob, type PermitJob } from './permit-job.js';
import { runConcurrent } from './stats.js';

/** What a governed call names (the run, authorization, tool and its revision, the task). */
export interface HubInvoke {
  run_id: string;
  authorization_ref: string;
  tool: string;
  declaration_revision: string;
  task_id?: string;
  write: boolean;
}

export type LoadJob =
  | {
      kind: 'hub';
      urls: string[];
      token: string;
      calls: number;
      concurrency: number;
      invoke: HubInvoke;
    }
  | {
      kind: 'direct';
      url: string;
      systemId: string;
      secret: string;
      operation: CompiledOperation;
      write: boolean;
      calls: number;
      concurrency: number;
      /** Idle ms before each call (untimed): the shop sees calls at the pace the Hub sends them. */
      idleMs?: number;
    }
  /**
   * Governed calls one at a time, alternating between Hubs (each its own token and invoke): an A/B
   * comparison of two Hubs at the same moment of a machine whose speed drifts. Sample i is Hub i mod n's.
   */
  | {
      kind: 'hubs-alternating';
      hubs: Array<{ url: string; token: string; invoke: HubInvoke }>;
      calls: number;
    }
  /** Plain GETs of one URL (a Hub's /health): the HTTP round trip floor between generator and Hub. */
  | { kind: 'get'; url: string; calls: number; concurrency: number }
  | PermitJob;

export type LoadResult =
  | {
      ok: true;
      samples: number[];
      wallMs: number;
      states: Record<string, number>;
      extra?: Record<string, number>;
      /** CPU time (user + system, ms, all threads) this process spent on the job. */
      cpuMs?: number;
    }
  | { ok: false; error: string };

const args = (write: boolean) =>
  write ? { product_id: 42, description: `bench ${randomUUID()}` } : { product_id: 42 };

function post(
  agent: Agent,
  url: string,
  token: string,
  body: unknown,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const data = JSON.stringify(body);
    const req = request(
      url,
      {
        method: 'POST',
        agent,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(data),
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

async function invokeOnce(
  agent: Agent,
  url: string,
  token: string,
  invoke: HubInvoke,
  states: Record<string, number>,
): Promise<void> {
  const r = await post(agent, `${url}/agent/v1/invocations`, token, {
    invocation_id: benchInvocationId(),
    run_id: invoke.run_id,
    authorization_ref: invoke.authorization_ref,
    tool: invoke.tool,
    declaration_revision: invoke.declaration_revision,
    arguments: args(invoke.write),
    host_call_id: 'bench',
    ...(invoke.task_id ? { task_id: invoke.task_id } : {}),
  });
  // a Hub answers a receipt with the call's state; a proxy floor (proxy-floor.ts) the shop's body
  const said = r.status < 300 ? (JSON.parse(r.body) as { state?: unknown }).state : undefined;
  const state = typeof said === 'string' ? said : `http_${r.status}`;
  states[state] = (states[state] ?? 0) + 1;
}

async function runHub(job: Extract<LoadJob, { kind: 'hub' }>): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const states: Record<string, number> = {};
  try {
    const { samples, wallMs } = await runConcurrent(job.calls, job.concurrency, (i) =>
      invokeOnce(agent, job.urls[i % job.urls.length]!, job.token, job.invoke, states),
    );
    return { ok: true, samples, wallMs, states };
  } finally {
    agent.destroy();
  }
}

async function runHubsAlternating(job: Extract<LoadJob, { kind: 'hubs-alternating' }>): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.hubs.length });
  const states: Record<string, number> = {};
  try {
    const { samples, wallMs } = await runConcurrent(job.calls, 1, (i) => {
      const hub = job.hubs[i % job.hubs.length]!;
      return invokeOnce(agent, hub.url, hub.token, hub.invoke, states);
    });
    return { ok: true, samples, wallMs, states };
  } finally {
    agent.destroy();
  }
}

async function runGet(job: Extract<LoadJob, { kind: 'get' }>): Promise<LoadResult> {
  const agent = new Agent({ keepAlive: true, maxSockets: job.concurrency });
  const states: Record<string, number> = {};
  try {
    const { samples, wallMs } = await runConcurrent(job.calls, job.concurrency, async () => {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(job.url, { agent }, (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        req.on('error', reject);
        req.end();
      });
      states[`http_${status}`] = (states[`http_${status}`] ?? 0) + 1;
    });
    return { ok: true, samples, wallMs, states };
  } finally {
    agent.destroy();
  }
}

async function runDirect(job: Extract<LoadJob, { kind: 'direct' }>): Promise<LoadResult> {
  const states: Record<string, number> = {};
  const { samples, wallMs } = await runConcurrent(
    job.calls,
    job.concurrency,
    async () => {
      const r = await sendSigned({
        baseUrl: job.url,
        systemId: job.systemId,
        allowInsecureHttp: false,
        secret: job.secret,
        request: buildRequest(job.operation, args(job.write)),
        signedPath: 'operation',
        onBehalfOf: 'operator@demo.local',
        jobId: 'bench',
        idempotencyKey: benchInvocationId(),
        timeoutMs: 10_000,
      });
      const state = r.kind === 'response' ? `http_${r.status}` : r.kind;
      states[state] = (states[state] ?? 0) + 1;
    },
    job.idleMs,
  );
  return { ok: true, samples, wallMs, states };
}

// exit (rather than die) on SIGTERM, so a CPU profile asked for is written
process.on('SIGTERM', () => process.exit(0));
process.on('message', (job: LoadJob) => {
  const cpuBefore = process.cpuUsage();
  const run =
    job.kind === 'hub'
      ? runHub(job)
      : job.kind === 'hubs-alternating'
        ? runHubsAlternating(job)
        : job.kind === 'direct'
          ? runDirect(job)
          : job.kind === 'get'
            ? runGet(job)
            : runPermitJob(job);
  run.then(
    (result) => {
      const cpu = process.cpuUsage(cpuBefore);
      process.send!(result.ok ? { ...result, cpuMs: (cpu.user + cpu.system) / 1000 } : result);
    },
    (err: unknown) =>
      process.send!({ ok: false, error: String((err as Error)?.stack ?? err) } satisfies LoadResult),
  );
});
process.send!({ ok: true, samples: [], wallMs: 0, states: { ready: 1 } } satisfies LoadResult);
