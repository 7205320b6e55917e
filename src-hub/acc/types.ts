/** The compiled form of one ACC v1 operation: what the Hub turns into a declaration and dispatches. */
import type { z } from 'zod';
import type { ApprovalRuleSchema } from '../../src-shared/hub-api.js';

export type ApprovalRule = z.infer<typeof ApprovalRuleSchema>;
export type RiskLevel = 'low' | 'medium' | 'high';
export type SideEffect = 'none' | 'read' | 'write' | 'notify' | 'external';
export type RateWindow = '1s' | '1m' | '1h' | '1d';

export interface CompiledOperation {
  tool: string; // operationId
  description: string;
  method: string; // upper case
  path_template: string; // OpenAPI path, e.g. /products/{product_id}
  path_params: string[];
  query_params: string[];
  body_params: string[];
  has_body: boolean;
  /** True when the operation's requestBody is required: an empty arguments set still sends '{}'. */
  body_required: boolean;
  /** One JSON Schema object: path + query + body properties flattened, additionalProperties false, local $refs resolved. */
  input_schema: Record<string, unknown>;
  /** write unless the operation is declared readonly AND its side effect is none/read. */
  effect: 'read' | 'write';
  /** The declared execution.readonly flag (part of the revision even when it does not change the effect). */
  declared_readonly: boolean;
  side_effect: SideEffect;
  risk_level: RiskLevel;
  approval: { required: boolean; prompt: string | null; when: ApprovalRule[] };
  idempotent: boolean;
  timeout_ms: number;
  rate_limit: { count: number; window: RateWindow } | null;
  scope: string;
  subject_required: boolean;
  audit_sensitive: boolean;
  guidance: Record<string, unknown> | null;
  /** sha256 hex of the canonical JSON of every field above. */
  declaration_revision: string;
}

export const DEFAULT_TIMEOUT_MS = 10_000;
