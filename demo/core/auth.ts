/** Verifies the Hub's request signature over the exact raw body a demo system received. */
import { SIGNATURE_HEADERS, verifySignature, type SignatureCheck } from '../../src-shared/signing.js';

export interface SignedRequestFacts {
  method: string;
  url: string; // path with query, exactly as received
  rawBody: string;
  headers: Record<string, string | string[] | undefined>;
}

export function header(headers: SignedRequestFacts['headers'], name: string): string | undefined {
  const v = headers[name];
  return Array.isArray(v) ? v[0] : v;
}

export function checkSignature(req: SignedRequestFacts, secret: string, nowSeconds: number): SignatureCheck {
  const tsHeader = header(req.headers, SIGNATURE_HEADERS.timestamp);
  const presented = header(req.headers, SIGNATURE_HEADERS.signature);
  if (tsHeader === undefined || presented === undefined || !/^\d{1,12}$/.test(tsHeader)) {
    return { ok: false, code: 'signature_missing' };
  }
  return verifySignature(
    {
      secret,
      timestamp: Number(tsHeader),
      method: req.method,
      pathWithQuery: req.url,
      body: req.rawBody,
      onBehalfOf: header(req.headers, SIGNATURE_HEADERS.onBehalfOf) ?? '',
      jobId: header(req.headers, SIGNATURE_HEADERS.jobId) ?? '',
      presented,
    },
    nowSeconds,
  );
}
