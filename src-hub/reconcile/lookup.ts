/**
 * Reconciliation evidence from a business system: a signed GET of
 * /.well-known/bailing/operations/{idempotency_key}. Read-only; never retries; never re-sends the call.
 *
 * - 200 with a well-formed record for this key  -> succeeded | failed (+ evidence_digest)
 * - 404 with {"error":"operation_not_found"}     -> not_found (the system never committed this key)
 * - anything else (503, other 404, malformed body, timeout, lost connection) -> unavailable
 */
import { BUSINESS_OPERATION_STATUSES, type BusinessOperationStatus } from '../../src-shared/states.js';
import { z } from 'zod';
import { canonicalJson, sha256Hex } from '../../src-shared/digest.js';
import type { SignedPathMode } from '../../src-shared/hub-api.js';
import { sendSigned } from '../dispatch/send-signed.js';

export const LOOKUP_PATH_PREFIX = '/.well-known/bailing/operations/';

export interface LookupInput {
  baseUrl: string;
  systemId: string;
  allowInsecureHttp: boolean;
  secret: string;
  /** The system's `signed_path`: the look-up is signed like a call. */
  signedPath: SignedPathMode;
  idempotencyKey: string;
  onBehalfOf: string;
  jobId: string;
  timeoutMs: number;
  signal?: AbortSignal;
}

export type LookupResult =
  | { outcome: BusinessOperationStatus; http_status: number; result: unknown; evidence_digest: string }
  | { outcome: 'not_found' }
  | { outcome: 'unavailable'; detail: string };

const LookupBodySchema = z.object({
  idempotency_key: z.string(),
  status: z.enum(BUSINESS_OPERATION_STATUSES),
  http_status: z.number().int().min(100).max(599),
  result: z.unknown(),
  recorded_at: z.string(),
});

export async function lookupOperation(input: LookupInput): Promise<LookupResult> {
  const answer = await sendSigned({
    baseUrl: input.baseUrl,
    systemId: input.systemId,
    allowInsecureHttp: input.allowInsecureHttp,
    secret: input.secret,
    request: {
      method: 'GET',
      pathWithQuery: LOOKUP_PATH_PREFIX + encodeURIComponent(input.idempotencyKey),
      body: '',
    },
    signedPath: input.signedPath,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
    idempotencyKey: null,
    timeoutMs: input.timeoutMs,
    signal: input.signal,
  });
  if (answer.kind === 'not_sent')
    return { outcome: 'unavailable', detail: `look-up not sent (${answer.reason}): ${answer.detail}` };
  if (answer.kind === 'no_response')
    return { outcome: 'unavailable', detail: `look-up got no answer (${answer.reason}): ${answer.detail}` };
  if (answer.truncated) return { outcome: 'unavailable', detail: 'look-up answer too large' };
  if (answer.status === 404) {
    const body = answer.body as { error?: unknown } | null;
    if (body !== null && typeof body === 'object' && body.error === 'operation_not_found')
      return { outcome: 'not_found' };
    return {
      outcome: 'unavailable',
      detail: 'look-up answered 404 without operation_not_found (no look-up offered?)',
    };
  }
  if (answer.status !== 200)
    return { outcome: 'unavailable', detail: `look-up answered HTTP ${answer.status}` };
  const parsed = LookupBodySchema.safeParse(answer.body);
  if (!parsed.success) return { outcome: 'unavailable', detail: 'look-up answer is malformed' };
  if (parsed.data.idempotency_key !== input.idempotencyKey) {
    return { outcome: 'unavailable', detail: 'look-up answered for another idempotency key' };
  }
  return {
    outcome: parsed.data.status,
    http_status: parsed.data.http_status,
    result: parsed.data.result,
    evidence_digest: sha256Hex(canonicalJson(answer.body)),
  };
}
