/**
 * HubGateway over the hub-client: the client token for tasks, authorizations and the live event
 * stream; the admin token (only for the embedded local Hub) for approvals and the audit. The
 * connection state follows the event stream, which reconnects by itself with Last-Event-ID; a
 * failed call that could not reach the Hub marks the connection down until the stream is back.
 * A `stream.reset` (the Hub pruned events this stream missed) re-reads tasks and approvals; an
 * `authorization.changed` re-reads tasks (their systems, ./task-systems.ts).
 */
import { randomUUID } from 'node:crypto';
import type { Approval, Declaration, Receipt } from '../../src-shared/hub-api.js';
import type { AuthorizationTool, HubConnection } from '../../src-shared/ipc/views.js';
import type { HubProblem } from '../../src-shared/states.js';
import type { HubAdminClient, HubClient } from '../hub-client/index.js';
import { isHubClientError } from '../hub-client/index.js';
import { AppError } from '../../src-shared/errors.js';
import { createCoalescer } from '../../src-shared/coalesce.js';
import type { HubGateway, HubGatewayEvent } from './hub-gateway.js';
import { createTaskSystemsLookup } from './task-systems.js';
import { timelineFromAudit, timelineFromReceipts } from './timeline.js';

export interface HubGatewayDeps {
  client: HubClient;
  admin: HubAdminClient | null;
  mode: 'local' | 'remote';
  url: string;
  /** The chosen Hub cannot be used this launch: offline from the start, nothing is asked of it. */
  problem?: HubProblem | null;
  reconnectDelayMs?: number;
  maxReceipts?: number;
  now?: () => Date;
}

/** The Hub's largest search page. */
const TOOLS_PAGE = 50;
/**
 * The most tools the task form lists per authorization (pages of TOOLS_PAGE while the Hub says
 * there are more; an older Hub, which does not page, gives its first page). A system with more
 * lists its first ones; the form can add others by name.
 */
const MAX_TOOLS_PER_AUTHORIZATION = 2_000;
const MAX_FIELDS = 200;

function authorizationTool(d: Declaration): AuthorizationTool {
  const props = d.input_schema['properties'];
  const fields =
    props && typeof props === 'object' && !Array.isArray(props)
      ? Object.keys(props)
          .filter((k) => k.length <= 200)
          .slice(0, MAX_FIELDS)
      : [];
  return {
    authorization_ref: d.authorization_ref,
    tool: d.tool,
    description: d.description,
    effect: d.effect,
    fields,
  };
}

export function createHubGateway(deps: HubGatewayDeps): HubGateway {
  const now = deps.now ?? (() => new Date());
  const listeners = new Set<(e: HubGatewayEvent) => void>();
  const receipts = new Map<string, Receipt>();
  const maxReceipts = deps.maxReceipts ?? 50_000;
  const problem = deps.problem ?? null;
  let conn: HubConnection = {
    state: problem ? 'disconnected' : 'connecting',
    mode: deps.mode,
    url: problem === 'remote_not_configured' ? null : deps.url,
    reason: problem ? 'The chosen Hub cannot be used this launch; fix it in Settings.' : null,
    since: now().toISOString(),
    can_approve: deps.admin !== null,
    problem,
  };
  const emit = (e: HubGatewayEvent) => {
    for (const l of [...listeners]) l(e);
  };
  const setState = (state: HubConnection['state'], reason: string | null) => {
    if (conn.state === state && conn.reason === reason) return;
    conn = { ...conn, state, reason, since: now().toISOString() };
    emit({ type: 'connection', connection: conn });
  };

  let approvalsTimer: NodeJS.Timeout | null = null;
  const refreshApprovals = () => {
    if (!deps.admin || approvalsTimer) return;
    approvalsTimer = setTimeout(() => {
      approvalsTimer = null;
      deps.admin
        ?.listApprovals({ state: 'pending' })
        .then((list) => emit({ type: 'approvals', pending: list.length }))
        .catch(() => {});
    }, 50);
  };

  const remember = (r: Receipt) => {
    receipts.delete(r.invocation_id);
    receipts.set(r.invocation_id, r);
    if (receipts.size > maxReceipts) {
      const oldest = receipts.keys().next().value;
      if (oldest !== undefined) receipts.delete(oldest);
    }
  };

  /**
   * The Hub pruned events this stream had not seen (stream.reset): re-read what events feed —
   * every task's accounting and the pending approvals. Receipts are re-read per call by inspect;
   * the receipt cache behind the remote timeline keeps what it saw.
   */
  const rereadTasks = () => {
    deps.client
      .listTasks()
      .then((tasks) => {
        for (const task of tasks) emit({ type: 'task', task: systems.served(task) });
      })
      .catch(() => {});
  };
  const resync = () => {
    refreshApprovals();
    rereadTasks();
  };
  const systems = createTaskSystemsLookup({
    getTask: (id) => deps.client.getTask(id),
    listTasks: () => deps.client.listTasks(),
    emit: (task) => emit({ type: 'task', task }),
  });
  // An authorization changed (revoked, rebound, its system retired: one event per authorization):
  // the tasks naming it are served again, with their systems as the Hub has them now.
  const authorizationChanged = createCoalescer<'tasks'>(rereadTasks, 100);

  const sub = problem
    ? null
    : deps.client.subscribeEvents({
        reconnectDelayMs: deps.reconnectDelayMs ?? 1000,
        onStatus: (s) => {
          if (s === 'open') {
            setState('connected', null);
            refreshApprovals();
          } else if (s === 'reconnecting')
            setState('disconnected', 'The Hub stopped answering; reconnecting.');
          else setState('disconnected', 'The Hub connection was closed.');
        },
        onError: () => {},
        onEvent: (e) => {
          if (e.type === 'invocation.changed') {
            remember(e.receipt);
            emit({ type: 'invocation', receipt: e.receipt });
            if (e.receipt.approval) refreshApprovals();
          } else if (e.type === 'task.changed') {
            emit({ type: 'task', task: e.task });
            systems.streamed(e.task);
          } else if (e.type === 'authorization.changed') {
            emit({ type: 'authorization', authorization: e.authorization });
            authorizationChanged.signal('tasks');
          } else resync();
        },
      });

  /** Calls the Hub; a failure to reach it marks the connection down (the stream reconnects). */
  const call = async <T>(fn: () => Promise<T>): Promise<T> => {
    if (problem) throw new AppError('hub_unavailable', 'The chosen Hub cannot be used this launch.');
    try {
      return await fn();
    } catch (err) {
      if (isHubClientError(err) && (err.kind === 'network' || err.kind === 'timeout')) {
        setState('disconnected', 'The Hub stopped answering; reconnecting.');
        throw new AppError('hub_unavailable', 'The Hub cannot be reached right now.');
      }
      throw err;
    }
  };
  const admin = (): HubAdminClient => {
    if (!deps.admin)
      throw new AppError('not_permitted', 'The connected credential may not decide approvals.');
    return deps.admin;
  };

  /** Every tool of one authorization, page by page (an empty query lists them in a stable order). */
  const listTools = async (authorizationRef: string): Promise<Declaration[]> => {
    const tools: Declaration[] = [];
    for (;;) {
      const page = await deps.client.searchTools({
        query: '',
        authorization_refs: [authorizationRef],
        limit: TOOLS_PAGE,
        offset: tools.length,
      });
      tools.push(...page.declarations);
      if (!page.more || page.declarations.length === 0 || tools.length >= MAX_TOOLS_PER_AUTHORIZATION)
        return tools.slice(0, MAX_TOOLS_PER_AUTHORIZATION);
    }
  };

  return {
    connection: () => conn,
    listAuthorizations: () => call(() => deps.client.listAuthorizations()),
    listAuthorizationTools: () =>
      call(async () => {
        const auths = (await deps.client.listAuthorizations()).filter((a) => a.state === 'active');
        // One listing per authorization (an empty query lists its system's tools), so one system's
        // many tools cannot crowd another's out of the Hub's result limit.
        const found = await Promise.all(auths.map((a) => listTools(a.authorization_ref)));
        return found.flat().map(authorizationTool);
      }),
    listTasks: async () => (await call(() => deps.client.listTasks())).map(systems.served),
    createTask: async (req) => systems.served(await call(() => deps.client.createTask(req))),
    pauseTask: async (id) => systems.served(await call(() => deps.client.pauseTask(id))),
    continueTask: async (id) => systems.served(await call(() => deps.client.continueTask(id))),
    cancelTask: async (id) => systems.served(await call(() => deps.client.cancelTask(id))),
    async taskTimeline(taskId) {
      if (deps.admin) {
        const a = deps.admin;
        const entries = await call(() => a.audit({ task_id: taskId, limit: 1000 }));
        return timelineFromAudit(entries);
      }
      const task = await call(() => deps.client.getTask(taskId));
      return timelineFromReceipts(
        [...receipts.values()].filter((r) => r.task_id === taskId),
        task,
      );
    },
    canApprove: () => deps.admin !== null,
    async listApprovals(): Promise<Approval[]> {
      const a = admin();
      const list = await call(() => a.listApprovals());
      return list.sort((x, y) => (x.created_at < y.created_at ? 1 : -1));
    },
    async decideApproval(approvalId, decision) {
      const a = admin();
      const out = await call(() => a.decideApproval(approvalId, { decision_id: randomUUID(), decision }));
      refreshApprovals();
      return out;
    },
    lastReceipt: (id) => receipts.get(id) ?? null,
    async executionState(id) {
      const seen = receipts.get(id);
      if (seen) return seen.state;
      if (problem) return null;
      try {
        const r = await deps.client.getInvocation(id);
        remember(r);
        return r.state;
      } catch {
        return null; // another client's call, or the Hub cannot say now: unknown, never guessed
      }
    },
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async close() {
      if (approvalsTimer) clearTimeout(approvalsTimer);
      systems.close();
      authorizationChanged.dispose();
      sub?.close();
      await sub?.done.catch(() => {});
    },
  };
}
