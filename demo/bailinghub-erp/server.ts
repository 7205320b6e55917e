/**
 * A business system built for BailingHub, mounted under a path prefix (base URL
 * http://127.0.0.1:<port>/openapi), verifying requests the way BailingHub's SDK documentation
 * tells integrators to:
 *
 * - a tool call is verified over the operation's path as written in the spec (`/api/refunds`),
 *   without the mount prefix the app is served under;
 * - the spec GET (`/openapi/.well-known/bailing/tools.json`) is signed like a call over the path it
 *   was sent to, with an empty body and no on-behalf-of subject or job id — unsigned, it is 401;
 * - a timestamp 300 s or more away is stale (src-shared/signing.ts).
 *
 * Like most systems built for BailingHub it offers no operations look-up. It validates its own
 * inputs (a missing required field is 400), honours the idempotency key for writes, and keeps a
 * request log and a write ledger for tests. Not part of the embedded default.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { SIGNATURE_HEADERS, verifySignature } from '../../src-shared/signing.js';
import { buildErpSpec, ERP_TOOLS, type ToolDef } from './tools.js';

export const ERP_PREFIX = '/openapi';
export const ERP_SPEC_PATH = '/.well-known/bailing/tools.json';

export interface ErpRequest {
  method: string;
  url: string;
  kind: 'spec' | 'operation' | 'other';
  tool: string | null;
  auth: 'valid' | 'signature_missing' | 'signature_invalid' | 'timestamp_expired';
  status: number;
  idempotency_key: string | null;
  on_behalf_of: string;
}

export interface ErpWrite {
  tool: string;
  idempotency_key: string;
  target: string;
  changes: Record<string, unknown>;
  on_behalf_of: string;
}

export interface ErpHandle {
  /** Base URL to register, prefix included. */
  url: string;
  secret: string;
  requests(): ErpRequest[];
  ledger(): ErpWrite[];
  /** The next call of `tool` commits, then its connection is destroyed without an answer. */
  dropAfterCommit(tool: string): void;
  close(): Promise<void>;
}

type Json = Record<string, unknown>;
type Answer = { status: number; body: unknown; write?: Omit<ErpWrite, 'idempotency_key' | 'on_behalf_of'> };

interface State {
  products: Map<string, { id: string; name: string; price: number; currency: string }>;
  refunds: Json[];
}

const fail = (status: number, error: string, message: string): Answer => ({
  status,
  body: { error, message },
});

/** The ERP's own validation: required fields present, and of the declared type. */
function missingOrWrong(t: ToolDef, args: Json): Answer | null {
  for (const p of t.params) {
    const v = args[p.name];
    if (v === undefined) {
      if (p.required) return fail(400, 'missing_field', `${p.name} is required`);
      continue;
    }
    const type = p.type ?? 'string';
    const ok =
      type === 'array' ? Array.isArray(v) : type === 'integer' ? Number.isInteger(v) : typeof v === type;
    if (!ok) return fail(400, 'invalid_field', `${p.name} must be ${type}`);
    if (p.enum && !p.enum.includes(String(v))) return fail(400, 'invalid_field', `${p.name} is not allowed`);
  }
  return null;
}

function execute(t: ToolDef, args: Json, state: State): Answer {
  const product = typeof args.id === 'string' ? state.products.get(args.id) : undefined;
  switch (t.name) {
    case 'product_get':
      return product ? { status: 200, body: product } : fail(404, 'product_not_found', 'no such product');
    case 'product_search': {
      const k = typeof args.keyword === 'string' ? args.keyword.toLowerCase() : '';
      const found = [...state.products.values()].filter((p) => p.name.toLowerCase().includes(k));
      return { status: 200, body: { products: found.slice(0, Number(args.limit ?? 10)) } };
    }
    case 'member_lookup':
      return args.phone === '13800138000'
        ? { status: 200, body: { member_id: 'M-1', name: '张三', phone: args.phone } }
        : fail(404, 'member_not_found', 'no member with that phone');
    case 'refund_create': {
      const refund = { refund_id: `R-${state.refunds.length + 1}`, status: 'created', ...args };
      state.refunds.push(refund);
      return {
        status: 201,
        body: refund,
        write: { tool: t.name, target: `order:${String(args.order_id)}`, changes: args },
      };
    }
    case 'price_update': {
      if (!product) return fail(404, 'product_not_found', 'no such product');
      const before = product.price;
      product.price = args.price as number;
      if (typeof args.currency === 'string') product.currency = args.currency;
      return {
        status: 200,
        body: product,
        write: {
          tool: t.name,
          target: `product:${product.id}`,
          changes: { price: { before, after: product.price } },
        },
      };
    }
    case 'order_query':
      return { status: 200, body: { orders: [{ order_id: 'SO-1001', status: args.status ?? 'paid' }] } };
    default:
      return fail(410, 'gone', `${t.name} is retired`);
  }
}

/** Path parameters from an OpenAPI template (`/api/products/{id}`), or null when it does not match. */
function matchPath(template: string, path: string): Json | null {
  const names: string[] = [];
  const re = new RegExp(
    '^' + template.replace(/\{([^}]+)\}/g, (_m, n: string) => (names.push(n), '([^/]+)')) + '$',
  );
  const m = re.exec(path);
  if (!m) return null;
  return Object.fromEntries(names.map((n, i) => [n, decodeURIComponent(m[i + 1] ?? '')]));
}

function argsOf(t: ToolDef, params: Json, query: URLSearchParams, body: Json): Json {
  const args: Json = { ...params };
  for (const p of t.params) {
    const where = p.in ?? (t.method === 'GET' ? 'query' : 'body');
    if (where === 'query' && query.has(p.name)) {
      const raw = query.get(p.name) ?? '';
      args[p.name] = p.type === 'integer' || p.type === 'number' ? Number(raw) : raw;
    }
    if (where === 'body' && body[p.name] !== undefined) args[p.name] = body[p.name];
  }
  return args;
}

export async function startBailingHubErp(opts: {
  secret: string;
  host?: string;
  port?: number;
}): Promise<ErpHandle> {
  const spec = buildErpSpec();
  const state: State = {
    products: new Map([
      ['P-100', { id: 'P-100', name: 'Tea set', price: 88, currency: 'CNY' }],
      ['P-200', { id: 'P-200', name: 'Tea cups', price: 18, currency: 'CNY' }],
    ]),
    refunds: [],
  };
  const requests: ErpRequest[] = [];
  const ledger: ErpWrite[] = [];
  const settled = new Map<string, Answer>();
  const drops = new Set<string>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const url = req.url ?? '/';
      const method = req.method ?? 'GET';
      const h = (name: string) => {
        const v = req.headers[name];
        return (Array.isArray(v) ? v[0] : v) ?? '';
      };
      const entry: ErpRequest = {
        method,
        url,
        kind: 'other',
        tool: null,
        auth: 'valid',
        status: 0,
        idempotency_key: h(SIGNATURE_HEADERS.idempotencyKey) || null,
        on_behalf_of: h(SIGNATURE_HEADERS.onBehalfOf),
      };
      requests.push(entry);
      const send = (a: Answer) => {
        entry.status = a.status;
        res.writeHead(a.status, { 'content-type': 'application/json' }).end(JSON.stringify(a.body));
      };
      // The signature covers `signedPath`: the spec GET as sent, a tool call without the prefix.
      const verified = (signedPath: string): boolean => {
        const ts = h(SIGNATURE_HEADERS.timestamp);
        const check = verifySignature(
          {
            secret: opts.secret,
            timestamp: /^\d{1,12}$/.test(ts) ? Number(ts) : Number.NaN,
            method,
            pathWithQuery: signedPath,
            body: raw,
            onBehalfOf: h(SIGNATURE_HEADERS.onBehalfOf),
            jobId: h(SIGNATURE_HEADERS.jobId),
            presented: h(SIGNATURE_HEADERS.signature) || undefined,
          },
          Math.floor(Date.now() / 1000),
        );
        if (check.ok) return true;
        entry.auth = check.code;
        send(fail(401, check.code, 'bad signature'));
        return false;
      };

      if (!url.startsWith(`${ERP_PREFIX}/`)) return send(fail(404, 'not_found', 'no such route'));
      const inner = url.slice(ERP_PREFIX.length);
      const [path = '/', queryText = ''] = inner.split('?', 2);
      if (method === 'GET' && path === ERP_SPEC_PATH) {
        entry.kind = 'spec';
        if (verified(url)) send({ status: 200, body: spec });
        return;
      }
      for (const t of ERP_TOOLS) {
        const params = t.method === method ? matchPath(t.path, path) : null;
        if (!params) continue;
        entry.kind = 'operation';
        entry.tool = t.name;
        if (!verified(inner)) return;
        if (t.requiresSubject && !entry.on_behalf_of)
          return send(fail(403, 'subject_required', 'an on-behalf-of subject is required'));
        let body: Json = {};
        if (raw !== '') {
          try {
            body = JSON.parse(raw) as Json;
          } catch {
            return send(fail(400, 'invalid_json', 'the body is not JSON'));
          }
        }
        const args = argsOf(t, params, new URLSearchParams(queryText), body);
        const bad = missingOrWrong(t, args);
        if (bad) return send(bad);
        const isWrite = t.method !== 'GET' && t.readonly !== true;
        const key = entry.idempotency_key;
        if (isWrite && key && settled.has(key)) return send(settled.get(key) as Answer);
        const answer = execute(t, args, state);
        if (isWrite && key) {
          settled.set(key, answer);
          if (answer.write)
            ledger.push({ ...answer.write, idempotency_key: key, on_behalf_of: entry.on_behalf_of });
        }
        if (drops.delete(t.name)) {
          req.socket.destroy(); // committed; the answer is lost
          return;
        }
        return send(answer);
      }
      send(fail(404, 'not_found', 'no such route'));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://${opts.host ?? '127.0.0.1'}:${port}${ERP_PREFIX}`,
    secret: opts.secret,
    requests: () => requests.map((r) => ({ ...r })),
    ledger: () => ledger.map((w) => ({ ...w })),
    dropAfterCommit: (tool) => void drops.add(tool),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
