/** Public types of the demo business systems (shops and inventory) and their control surface. */
import { z } from 'zod';
import type { DemoDataState, DemoDataStorage } from '../src-shared/states.js';

export const FAULT_KINDS = [
  'drop_after_commit', // commit the write, then destroy the socket without a response
  'hang_after_commit', // commit the write, then never answer (socket closed only on shutdown)
  'delay', // wait delay_ms, then behave normally
  'fail_before_commit', // 500, nothing written, key not settled
  'fail_after_commit', // commit the write, then answer 500
  'reject', // 4xx with status + code, nothing written, key settled as failed
  'lookup_unavailable', // the operations look-up answers 503
] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];

export const FaultSpecSchema = z
  .object({
    /** operationId the fault applies to, or '*' for every operation of the system. */
    operation: z.string().min(1).max(100),
    kind: z.enum(FAULT_KINDS),
    times: z.enum(['once', 'always']).default('once'),
    delay_ms: z.number().int().min(0).max(600_000).optional(),
    status: z.number().int().min(400).max(499).optional(),
    code: z.string().min(1).max(100).optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    if (f.kind === 'delay' && f.delay_ms === undefined) {
      ctx.addIssue({ code: 'custom', message: 'delay_ms is required for kind delay', path: ['delay_ms'] });
    }
  });
export type FaultSpecInput = z.input<typeof FaultSpecSchema>;
export type FaultSpec = z.output<typeof FaultSpecSchema>;

export const SpecVariantSchema = z.enum(['v1', 'v2']);
export type SpecVariant = z.infer<typeof SpecVariantSchema>;
export const SpecVariantRequestSchema = z.object({ variant: SpecVariantSchema }).strict();
/** `POST /__demo/reset` takes an empty JSON object (a JSON body keeps cross-site forms out). */
export const DemoDataResetRequestSchema = z.object({}).strict();

export interface FieldChange {
  before: unknown;
  after: unknown;
}

/** One committed write. The ledger is append-only. */
export interface LedgerEntry {
  seq: number;
  idempotency_key: string;
  operation: string;
  target: string; // e.g. "product:42", "sku:SKU-A-0042"
  changes: Record<string, FieldChange>;
  job_id: string;
  on_behalf_of: string;
  at: string;
}

export type RequestKind = 'operation' | 'lookup' | 'spec' | 'other';
export type RequestAuth =
  | 'valid'
  | 'signature_missing'
  | 'signature_invalid'
  | 'timestamp_expired'
  | 'audience_mismatch'
  | 'nonce_reused'
  | 'not_required';
export type RequestOutcome =
  | 'pending'
  | 'answered'
  | 'replayed' // repeated idempotency key: stored result returned, nothing written
  | 'dropped' // drop_after_commit: socket destroyed after commit
  | 'hung' // hang_after_commit: never answered
  | 'closed'; // the client went away before an answer

/** Every request the system received (control routes excluded), including rejected ones. */
export interface RequestLogEntry {
  seq: number;
  at: string;
  method: string;
  url: string;
  kind: RequestKind;
  operation: string | null;
  idempotency_key: string | null;
  job_id: string | null;
  on_behalf_of: string | null;
  auth: RequestAuth | null;
  committed: boolean; // this request performed a write that is in the ledger
  fault: FaultKind | null;
  outcome: RequestOutcome;
  status: number | null; // HTTP status sent, null when none was sent
  in_flight_at_start: number; // business operation requests in progress when this one arrived (including it)
}

export interface ConcurrencyStats {
  current: number;
  max_observed: number;
}

export interface SettledOperation {
  idempotency_key: string;
  operation: string;
  status: 'succeeded' | 'failed';
  http_status: number;
  result: unknown;
  recorded_at: string;
}

/** Where a system's business data is kept and whether it can be used (docs/business-systems.md). */
export interface DemoDataStatus {
  storage: DemoDataStorage;
  state: DemoDataState;
  /** The data file's name inside the data folder (null in memory). */
  file: string | null;
  seeded_at: string | null;
  reset_at: string | null;
  /** Why the file cannot be used: the SQLite or errno code, or the failed check. */
  detail: string | null;
}

/** What "reset demo data" did to one system. */
export interface DemoDataReset {
  system_id: string;
  /** False when this system's data could not be reset (its status says what is wrong). */
  reset: boolean;
  /** The unusable file kept aside under this name (never deleted), or null. */
  set_aside: string | null;
  status: DemoDataStatus;
}

export interface DemoSystemHandle {
  systemId: string;
  name: string;
  url: string;
  secret: string;
  ledger(): LedgerEntry[];
  requests(): RequestLogEntry[];
  concurrency(): ConcurrencyStats;
  state(): unknown;
  faults: { set(f: FaultSpecInput): void; clear(): void; list(): FaultSpec[] };
  setSpecVariant(v: SpecVariant): void;
  specVariant(): SpecVariant;
  /** Where the business data is kept and whether it can be used. */
  dataStatus(): DemoDataStatus;
  /**
   * Business state (products, stock) back to the seed; the ledger and settled keys are kept. An
   * unusable data file is set aside and a new one made. Throws when the file cannot be written.
   */
  resetData(): DemoDataReset;
  close(): Promise<void>;
}
