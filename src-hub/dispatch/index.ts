/** Building, signing and sending business requests. Nothing here retries. */
export { buildRequest, BuildRequestError, type BuiltRequest } from './build-request.js';
export { signedHeaders, type SignHeadersInput } from './sign.js';
export { requestTarget, signedPathOf } from './signed-path.js';
export {
  httpExchange,
  prepareExchange,
  runExchange,
  type PreparedExchange,
  DEFAULT_MAX_BODY_BYTES,
  type DispatchResult,
  type NoResponseReason,
  type NotSentReason,
} from './http.js';
export {
  PREPARED_FRESH_MS,
  prepareSigned,
  sendSigned,
  type PreparedSigned,
  type SendSignedInput,
} from './send-signed.js';
export {
  fetchSpec,
  DEFAULT_SPEC_PATH,
  MAX_SPEC_BYTES,
  type FetchSpecInput,
  type FetchSpecResult,
} from './fetch-spec.js';
