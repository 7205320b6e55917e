// A call whose request never left the Hub (header refused, DNS, connection refused or never
// answered, TLS handshake)
// is `not_dispatched` with its own reason code and spends nothing: no permit, no write budget, no
// rate-window slot — given back in the same transaction that records the outcome. A connection reset
// after the request was written stays `unknown` and keeps its permit spent.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReceiptSchema, TaskViewSchema } from '../../src-shared/hub-api.js';
import { NOT_SENT_REASON_CODES } from '../../src-shared/states.js';
import { closedPort, tcpServer, unansweredConnect, UNRESOLVABLE_URL } from './dispatch/servers.js';
import { newInvocationId, opRequests, startEnv, type HubEnv } from './helpers.js';

let env: HubEnv;
const closers: Array<() => Promise<void>> = [];
beforeAll(async () => {
  env = await startEnv();
});
afterAll(async () => {
  await Promise.all(closers.map((c) => c()));
  await env.close();
});

/** Points shop B at another address, as if its DNS record, port or certificate changed under it. */
async function moveShopB(baseUrl: string) {
  const sys = await env.hub.store.getSystem('shop-b');
  if (!sys) throw new Error('shop-b missing');
  await env.hub.store.upsertSystem({ ...sys, base_url: baseUrl }, new Date().toISOString(), {
    actor: 'test',
    kind: 'system.moved',
    detail: {},
  });
}

const taskView = async (id: string) =>
  TaskViewSchema.parse((await env.agent('GET', `/agent/v1/tasks/${id}`)).body);
const dispatchRows = (id: string) =>
  env.sql<{ n: number }>('SELECT COUNT(*) AS n FROM operation_dispatches WHERE invocation_id = ?', id)[0]?.n;

describe('a request that never left is not_dispatched and spends nothing', () => {
  let taskId = '';
  const write = (authRef: string, text: string) =>
    env.invoke({
      authRef,
      tool: 'update_product_content',
      args: { product_id: 42, description: text },
      taskId,
    });

  beforeAll(async () => {
    // An authorization stored before on-behalf-of values were checked (the admin API refuses it now).
    const at = new Date().toISOString();
    await env.hub.store.createAuthorization(
      {
        authorization_ref: 'auth-legacy-zh',
        system_id: 'shop-a',
        account: '张三的店铺',
        on_behalf_of: '张三@示例',
        state: 'active',
        revision: 1,
        created_at: at,
        updated_at: at,
      },
      { actor: 'test', kind: 'authorization.created', detail: {} },
    );
    await env.hub.store.grant('auth-legacy-zh', 'desk', { actor: 'test', kind: 'grant', detail: {} });
    const tools = ['update_product_content', 'get_product'];
    const r = await env.agent('POST', '/agent/v1/tasks', {
      title: 'one write',
      authorizations: ['auth-shop-a', 'auth-shop-b', 'auth-legacy-zh'].map((ref) => ({
        authorization_ref: ref,
        tools,
      })),
      write_budget: 1,
      in_flight_limit: 2,
    });
    expect(r.status).toBe(201);
    taskId = r.body.task_id;
  });

  const expectNotSent = async (res: { status: number; body: unknown }, code: string) => {
    expect(res.status).toBe(201);
    const receipt = ReceiptSchema.parse(res.body);
    expect(receipt).toMatchObject({ state: 'not_dispatched', dispatch: 'none', reason_code: code });
    expect(receipt.reason_message).toContain('never left the Hub');
    expect(NOT_SENT_REASON_CODES).toContain(code);
    expect(dispatchRows(receipt.invocation_id)).toBe(0);
    const audit = await env.admin('GET', `/admin/v1/audit?invocation_id=${receipt.invocation_id}`);
    const dispatched = audit.body.entries.find((e: { kind: string }) => e.kind === 'invocation.dispatched');
    expect(dispatched).toMatchObject({ from_state: 'dispatching', to_state: 'not_dispatched' });
    expect(dispatched.detail).toMatchObject({ request_sent: false, outcome: code });
    const v = await taskView(taskId);
    expect(v).toMatchObject({ writes_used: 0, writes_left: 1, permits_granted: 0, in_flight: 0 });
    return receipt;
  };

  it('a subject that cannot travel in a header: not_sent_invalid_header, the shop saw nothing', async () => {
    const before = opRequests(env.demo.shopA);
    await expectNotSent(await write('auth-legacy-zh', 'never sent'), 'not_sent_invalid_header');
    expect(opRequests(env.demo.shopA)).toBe(before);
  });

  it('a host name that no longer resolves: not_sent_dns_failed', async () => {
    await moveShopB(UNRESOLVABLE_URL);
    await expectNotSent(await write('auth-shop-b', 'dns'), 'not_sent_dns_failed');
  });

  it('a refused connection: not_sent_connect_refused', async () => {
    await moveShopB(await closedPort());
    await expectNotSent(await write('auth-shop-b', 'refused'), 'not_sent_connect_refused');
  });

  it('a base URL moved to a metadata address or to plain http off loopback: not_sent_destination_refused', async () => {
    await moveShopB('http://169.254.169.254');
    await expectNotSent(await write('auth-shop-b', 'metadata'), 'not_sent_destination_refused');
    await moveShopB('http://192.0.2.10:8080');
    await expectNotSent(await write('auth-shop-b', 'cleartext'), 'not_sent_destination_refused');
  });

  it('a failed TLS handshake: not_sent_tls_failed', async () => {
    const t = await tcpServer((socket) => socket.once('data', () => socket.end('HTTP/1.1 400 x\r\n\r\n')));
    closers.push(t.close);
    await moveShopB(`https://${t.host}:${t.port}`);
    await expectNotSent(await write('auth-shop-b', 'tls'), 'not_sent_tls_failed');
  });

  it('a TCP connect never answered within the operation timeout: not_sent_connect_timeout', async () => {
    const t = await unansweredConnect();
    closers.push(t.close);
    await moveShopB(`http://${t.host}:${t.port}`);
    const receipt = await expectNotSent(
      await write('auth-shop-b', 'syn dropped'),
      'not_sent_connect_timeout',
    );
    expect(receipt.reason_message).toContain('no connection within');
  }, 30_000);

  it('metrics count none of them as dispatches; the task still has its whole budget for a real write', async () => {
    const m = await env.admin('GET', '/admin/v1/metrics');
    expect(m.body.clients.desk.dispatches).toBe(0);
    const v = await taskView(taskId);
    expect(v.counts.not_dispatched).toBe(7);
    expect(v.unresolved).toEqual([]);
  });

  it('a connection reset after the request was written stays unknown and its permit is spent', async () => {
    let seen = '';
    const t = await tcpServer((socket) =>
      socket.on('data', (b: Buffer) => {
        seen += b.toString();
        if (seen.includes('"description":"reset"')) socket.resetAndDestroy();
      }),
    );
    closers.push(t.close);
    await moveShopB(`http://${t.host}:${t.port}`);
    const r = await write('auth-shop-b', 'reset');
    const receipt = ReceiptSchema.parse(r.body);
    expect(receipt).toMatchObject({
      state: 'unknown',
      dispatch: 'attempted',
      reason_code: 'no_response_connection_lost',
    });
    expect(seen).toContain('PATCH /products/42/content');
    expect(dispatchRows(receipt.invocation_id)).toBe(1);
    const v = await taskView(taskId);
    expect(v).toMatchObject({ writes_used: 1, writes_left: 0, permits_granted: 1, in_flight: 0 });
    const refused = await write('auth-shop-a', 'over budget');
    expect(refused.body).toMatchObject({ state: 'not_dispatched', reason_code: 'budget_exhausted' });
  });
});

describe('an approved call whose resume never left', () => {
  it('goes back to approved (refused, nothing spent); a later resume sends it once', async () => {
    await moveShopB(env.demo.shopB.url);
    const id = newInvocationId();
    const first = await env.invoke({
      authRef: 'auth-shop-b',
      tool: 'update_product',
      args: { product_id: 42, price: 1500 },
      id,
    });
    expect(first.body.state).toBe('awaiting_approval');
    const pending = await env.admin('GET', '/admin/v1/approvals?state=pending');
    const approval = pending.body.approvals.find((a: { invocation_id: string }) => a.invocation_id === id);
    const decided = await env.admin('POST', `/admin/v1/approvals/${approval.approval_id}/decision`, {
      decision_id: `d-${id}`,
      decision: 'approve',
    });
    expect(decided.status).toBe(200);

    await moveShopB(await closedPort());
    const refused = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(refused.body).toMatchObject({
      action: 'refused',
      receipt: { state: 'approved', dispatch: 'none', reason_code: 'not_sent_connect_refused' },
    });
    expect(dispatchRows(id)).toBe(0);
    expect(env.demo.shopB.requests().filter((r) => r.idempotency_key === id)).toHaveLength(0);

    await moveShopB(env.demo.shopB.url);
    const sent = await env.agent('POST', `/agent/v1/invocations/${id}/resume`);
    expect(sent.body).toMatchObject({ action: 'dispatched', receipt: { state: 'succeeded' } });
    expect(env.demo.shopB.requests().filter((r) => r.idempotency_key === id)).toHaveLength(1);
  });
});
