/** The signed header set the Hub sends with every business request (see src-shared/signing.ts). */
import { SIGNATURE_HEADERS, computeSignature } from '../../src-shared/signing.js';

export interface SignHeadersInput {
  secret: string;
  method: string;
  pathWithQuery: string; // exactly the request target sent on the wire
  body: string;
  onBehalfOf: string;
  jobId: string;
  idempotencyKey: string | null;
  nowSeconds?: number;
}

export function signedHeaders(input: SignHeadersInput): Record<string, string> {
  const timestamp = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  const signature = computeSignature({
    secret: input.secret,
    timestamp,
    method: input.method,
    pathWithQuery: input.pathWithQuery,
    body: input.body,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
  });
  const headers: Record<string, string> = {
    [SIGNATURE_HEADERS.timestamp]: String(timestamp),
    [SIGNATURE_HEADERS.signature]: signature,
    [SIGNATURE_HEADERS.onBehalfOf]: input.onBehalfOf,
    [SIGNATURE_HEADERS.jobId]: input.jobId,
  };
  if (input.idempotencyKey !== null) headers[SIGNATURE_HEADERS.idempotencyKey] = input.idempotencyKey;
  return headers;
}
