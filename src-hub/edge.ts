/** Default wiring of the Hub's outbound edge to src-hub/acc, src-hub/dispatch and src-hub/reconcile. */
import { approvalRequired, compileSpec } from './acc/index.js';
import type { BusinessEdge, BusinessSendInput, PreparedSend, SendResult } from './context.js';
import { buildRequest, fetchSpec, prepareSigned } from './dispatch/index.js';
import { lookupOperation } from './reconcile/lookup.js';

function prepareSend(input: BusinessSendInput): PreparedSend {
  let request;
  try {
    request = buildRequest(input.op, input.args);
  } catch (err) {
    const refused: SendResult = {
      kind: 'not_sent',
      reason: 'invalid_request',
      detail: `the request could not be built: ${(err as Error).message}`,
    };
    return { send: () => Promise.resolve(refused) };
  }
  return prepareSigned({
    baseUrl: input.baseUrl,
    systemId: input.systemId,
    allowInsecureHttp: input.allowInsecureHttp,
    secret: input.secret,
    request,
    signedPath: input.signedPath,
    onBehalfOf: input.onBehalfOf,
    jobId: input.jobId,
    idempotencyKey: input.idempotencyKey,
    timeoutMs: input.timeoutMs,
  });
}

export function createBusinessEdge(): BusinessEdge {
  return {
    fetchSpec: (input) => fetchSpec(input),
    compileSpec: (doc) => compileSpec(doc),
    approvalRequired: (op, args) => approvalRequired(op, args),
    send: async (input) => prepareSend(input).send(input.signal),
    prepareSend,
    lookup: (input) => lookupOperation(input),
  };
}
