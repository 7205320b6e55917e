/**
 * The tools of a small ERP written the way BailingHub's connect SDKs describe business tools, and
 * the OpenAPI document those SDKs would generate from them (BailingHub's published formats, our
 * own code): OpenAPI 3.0.0, the description as `summary`, GET parameters in the query, other
 * parameters in a JSON body whose schema alone lists what is required, `x-agent-capability` with
 * no `execution` flags for a GET, approval rules as `{param, op, value, label}`, guidance as
 * `when_to_use` / `returns` / `examples`, a deprecated tool, a `phone` format.
 */

export type ParamType = 'string' | 'number' | 'integer' | 'boolean' | 'array';

export interface ToolParam {
  name: string;
  type?: ParamType;
  in?: 'path' | 'query' | 'body';
  required?: boolean;
  description?: string;
  enum?: string[];
  format?: string;
}

export interface ConfirmRule {
  param: string;
  op: '>' | '>=' | '<' | '<=' | '==' | '!=' | 'in' | 'contains' | 'exists';
  value?: unknown;
  label?: string;
}

export interface ToolDef {
  name: string;
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE';
  path: string;
  description: string;
  scope: string;
  risk?: 'low' | 'medium' | 'high';
  requiresSubject?: boolean;
  readonly?: boolean; // written only for non-GET tools, as the SDKs do
  idempotent?: boolean;
  confirmWhen?: ConfirmRule[];
  confirmPrompt?: string;
  whenToUse?: string;
  returns?: string;
  examples?: unknown[];
  deprecated?: boolean;
  params: ToolParam[];
}

export const ERP_TOOLS: readonly ToolDef[] = [
  {
    name: 'product_get',
    method: 'GET',
    path: '/api/products/{id}',
    description: 'Read one product: name, price and currency',
    scope: 'product.read',
    requiresSubject: true,
    whenToUse: 'you need the current price of one product before changing it',
    returns: 'the product with id, name, price and currency',
    examples: [{ id: 'P-100' }],
    params: [{ name: 'id', in: 'path', required: true, description: 'product id, e.g. P-100' }],
  },
  {
    name: 'product_search',
    method: 'GET',
    path: '/api/products',
    description: 'Search products by keyword',
    scope: 'product.read',
    params: [
      { name: 'keyword', description: 'part of the product name' },
      { name: 'limit', type: 'integer', description: 'at most this many (default 10)' },
    ],
  },
  {
    name: 'member_lookup',
    method: 'GET',
    path: '/api/members',
    description: 'Find a member by phone number',
    scope: 'member.read',
    requiresSubject: true,
    params: [
      { name: 'phone', required: true, format: 'phone', description: 'mobile number, e.g. 13800138000' },
    ],
  },
  {
    name: 'refund_create',
    method: 'POST',
    path: '/api/refunds',
    description: 'Create a refund for an order',
    scope: 'refund.create',
    risk: 'medium',
    requiresSubject: true,
    confirmWhen: [
      { param: 'amount', op: '>', value: 500, label: 'refunds over 500 need a manager' },
      { param: 'reason', op: 'contains', value: 'fraud', label: 'suspected fraud is reviewed' },
      { param: 'tags', op: 'contains', value: 'vip', label: 'VIP refunds are reviewed' },
    ],
    confirmPrompt: 'Refund {amount} on order {order_id}?',
    whenToUse: 'the customer was charged and should get money back',
    returns: 'the refund with its id and status',
    examples: [{ order_id: 'SO-1001', amount: 20, reason: 'damaged on arrival' }],
    params: [
      { name: 'order_id', required: true, description: 'order number' },
      { name: 'amount', type: 'number', required: true, description: 'amount to refund, in yuan' },
      { name: 'reason', required: true, description: 'why the refund is given' },
      { name: 'tags', type: 'array', description: 'labels such as vip' },
    ],
  },
  {
    name: 'price_update',
    method: 'PATCH',
    path: '/api/products/{id}/price',
    description: 'Change the price of a product',
    scope: 'product.price',
    risk: 'medium',
    requiresSubject: true,
    idempotent: true,
    confirmWhen: [
      { param: 'price', op: '>=', value: 1000, label: 'prices of 1000 or more need a manager' },
      { param: 'price', op: '<', value: 1, label: 'near-zero prices need a manager' },
      { param: 'price', op: '<=', value: 0 },
      { param: 'currency', op: 'in', value: ['USD', 'EUR'], label: 'foreign currencies are reviewed' },
      { param: 'currency', op: '!=', value: 'CNY' },
      { param: 'currency', op: '==', value: 'JPY' },
      { param: 'note', op: 'exists', label: 'a note goes to the pricing team' },
    ],
    params: [
      { name: 'id', in: 'path', required: true, description: 'product id' },
      { name: 'price', type: 'number', required: true, description: 'the new price' },
      { name: 'currency', enum: ['CNY', 'USD', 'EUR', 'JPY'], description: 'currency of the price' },
      { name: 'note', description: 'why the price changes' },
    ],
  },
  {
    name: 'order_query',
    method: 'POST',
    path: '/api/orders/query',
    description: 'Query orders by status (a read that uses POST)',
    scope: 'order.read',
    readonly: true,
    params: [{ name: 'status', enum: ['paid', 'shipped', 'refunded'], description: 'order status' }],
  },
  {
    name: 'order_export_legacy',
    method: 'GET',
    path: '/api/orders/export',
    description: 'Export all orders as CSV (being retired)',
    scope: 'order.read',
    deprecated: true,
    params: [],
  },
];

type Json = Record<string, unknown>;

function capabilityOf(t: ToolDef): Json {
  const capability: Json = { version: 1, enabled: true, scope: t.scope };
  if (t.risk && t.risk !== 'low') capability.risk = { level: t.risk };
  if (t.confirmWhen?.length || t.confirmPrompt) {
    capability.approval = {
      ...(t.confirmWhen?.length ? { when: t.confirmWhen } : {}),
      ...(t.confirmPrompt ? { prompt: t.confirmPrompt } : {}),
    };
  }
  if (t.requiresSubject) capability.subject = { required: true };
  const execution: Json = {};
  if (t.readonly === true && t.method !== 'GET') execution.readonly = true;
  if (t.idempotent === true && t.method !== 'GET') execution.idempotent = true;
  if (Object.keys(execution).length > 0) capability.execution = execution;
  const guidance: Json = {};
  if (t.whenToUse) guidance.when_to_use = t.whenToUse;
  if (t.returns) guidance.returns = t.returns;
  if (t.examples?.length) guidance.examples = t.examples;
  if (Object.keys(guidance).length > 0) capability.guidance = guidance;
  return capability;
}

function schemaOf(p: ToolParam): Json {
  const schema: Json = { type: p.type ?? 'string' };
  if (p.description) schema.description = p.description;
  if (p.enum) schema.enum = p.enum;
  if (p.format) schema.format = p.format;
  if (schema.type === 'array') schema.items = { type: 'string' };
  return schema;
}

/** The OpenAPI document, as BailingHub's SDKs generate it. */
export function buildErpSpec(): Json {
  const paths: Record<string, Json> = {};
  for (const t of ERP_TOOLS) {
    const op: Json = { operationId: t.name, summary: t.description, 'x-agent-capability': capabilityOf(t) };
    if (t.deprecated) op.deprecated = true;
    const parameters: Json[] = [];
    const properties: Json = {};
    const required: string[] = [];
    for (const p of t.params) {
      const where = p.in ?? (t.method === 'GET' ? 'query' : 'body');
      if (where === 'body') {
        properties[p.name] = schemaOf(p);
        if (p.required) required.push(p.name);
      } else parameters.push({ name: p.name, in: where, required: !!p.required, schema: schemaOf(p) });
    }
    if (parameters.length > 0) op.parameters = parameters;
    if (Object.keys(properties).length > 0) {
      const schema: Json = { type: 'object', properties, ...(required.length ? { required } : {}) };
      op.requestBody = { content: { 'application/json': { schema } } }; // no requestBody.required
    }
    (paths[t.path] ??= {})[t.method.toLowerCase()] = op;
  }
  return { openapi: '3.0.0', info: { title: 'ERP tools', version: '1.0.0' }, paths };
}
