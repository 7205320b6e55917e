/** Default wiring of the Hub's outbound edge to src-hub/acc, src-hub/dispatch and src-hub/reconcile. */
import { approvalRequired, compileSpec } from './acc/index.js';
import type { BusinessEdge } from './context.js';
import { buildRequest, fetchSpec, sendSigned } from './dispatch/index.js';
import { lookupOperation } from './reconcile/lookup.js';

export function createBusinessEdge(): BusinessEdge {
  return {
    fetchSpec: (baseUrl, specPath, timeoutMs) => fetchSpec(baseUrl, specPath, timeoutMs),
    compileSpec: (doc) => compileSpec(doc),
    approvalRequired: (op, args) => approvalRequired(op, args),
    async send(input) {
      let request;
      try {
        request = buildRequest(input.op, input.args);
      } catch (err) {
        return {
          kind: 'no_response',
          reason: 'aborted',
          detail: `request could not be built, nothing was sent: ${(err as Error).message}`,
        };
      }
      const r = await sendSigned({
        baseUrl: input.baseUrl,
        secret: input.secret,
        request,
        onBehalfOf: input.onBehalfOf,
        jobId: input.jobId,
        idempotencyKey: input.idempotencyKey,
        timeoutMs: input.timeoutMs,
        signal: input.signal,
      });
      if (r.kind === 'response') return r;
      return {
        kind: 'no_response',
        reason: r.reason,
        detail: r.request_sent ? r.detail : `${r.detail} (the request never left the Hub)`,
      };
    },
    lookup: (input) => lookupOperation(input),
  };
}
