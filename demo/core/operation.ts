/** How a demo system describes one business operation: its HTTP shape, its ACC block and its behaviour. */

export type JsonSchema = Record<string, unknown>;
export type HttpMethod = 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE';

export interface ParamDef {
  name: string;
  schema: JsonSchema;
  required: boolean;
  description: string;
}

export interface ApprovalRule {
  path: string;
  op: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte' | 'in' | 'exists';
  value?: unknown;
}

/** The `x-agent-capability` block (ACC v1) as the demo systems publish it. */
export interface AccBlock {
  version: 1;
  enabled: boolean;
  scope: string;
  subject?: { required: boolean };
  risk?: { level: 'low' | 'medium' | 'high' };
  approval?: { required: boolean; prompt?: string; when?: ApprovalRule[] };
  execution?: {
    readonly: boolean;
    idempotent: boolean;
    timeout_ms?: number;
    rate_limit?: { count: number; window: '1s' | '1m' | '1h' | '1d' };
  };
  audit?: { sensitive: boolean };
  outcome?: { result: string; side_effect: 'none' | 'read' | 'write' | 'notify' | 'external' };
  guidance?: Record<string, unknown>;
}

export interface WriteEffect {
  target: string;
  changes: Record<string, { before: unknown; after: unknown }>;
}

export interface OperationResult {
  status: number;
  body: unknown;
  /** Present when the operation changed state: becomes one ledger entry. */
  write?: WriteEffect;
}

export interface OperationInput {
  /** Path params + query params + body properties, flattened, validated (path/query coerced). */
  args: Record<string, unknown>;
  body: Record<string, unknown> | null;
  jobId: string;
  onBehalfOf: string;
}

export interface DemoOperationDef {
  operationId: string;
  method: HttpMethod;
  path: string; // OpenAPI template, e.g. /products/{product_id}
  summary: string;
  description: string;
  pathParams: ParamDef[];
  queryParams: ParamDef[];
  body: { schemaName: string; schema: JsonSchema; required: boolean } | null;
  response: { schemaName: string; schema: JsonSchema };
  capability: AccBlock;
  write: boolean;
  /** Business rule checked before schema validation (e.g. refusing non-editable fields). */
  precheck?(body: Record<string, unknown>): OperationResult | null;
  execute(input: OperationInput): OperationResult;
}

export const errorBody = (error: string, message: string) => ({ error, message });

export function fastifyPath(openApiPath: string): string {
  return openApiPath.replace(/\{([^}]+)\}/g, ':$1');
}
