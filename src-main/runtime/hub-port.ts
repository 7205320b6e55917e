/**
 * The one Hub port of the host runtime: everything sessions, turns, the tool executor and the
 * invocation runtime ask the Hub (authorizations, tool search, runs, the governed call, inspect and
 * resume). The hub-client's `HubClient` satisfies it as it is; tests may hand in any object of this
 * shape. Tasks, approvals and the event stream are not the runtime's business: the handlers reach
 * them through their own Hub gateway (src-main/handlers/hub-gateway.ts).
 */
import { HubClientError, type HubClient } from '../hub-client/index.js';

export type RuntimeHubPort = Pick<
  HubClient,
  | 'listAuthorizations'
  | 'listAuthorizationsWithRetired'
  | 'searchTools'
  | 'createRun'
  | 'endRun'
  | 'invoke'
  | 'getInvocation'
  | 'resumeInvocation'
  | 'attestInvocation'
>;

/** A refusal the Hub answered with its public code (e.g. declaration_changed, authorization_revoked). */
export interface HubRefusal {
  status: number;
  code: string;
  message: string;
}

/** The Hub's coded answer inside a hub-client error; null for anything else (no answer, no code). */
export function hubRefusalOf(err: unknown): HubRefusal | null {
  if (!(err instanceof HubClientError) || err.code === null || err.status === null) return null;
  return { status: err.status, code: err.code, message: err.message };
}
