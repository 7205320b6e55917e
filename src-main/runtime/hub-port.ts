/**
 * The part of the Hub client the session runtime uses directly (tool search and run lifecycle).
 * Governed calls, inspect and resume go through the InvocationRuntime (part 1), never through here.
 * Part 1's `createHubClient` satisfies this structurally; `adaptHubClient` (./hub-adapter.ts)
 * bridges any naming differences.
 */
import type {
  Authorization,
  CreateRunRequest,
  Declaration,
  Run,
  ToolSearchRequest,
} from '../../src-shared/hub-api.js';

export interface RuntimeHubPort {
  listAuthorizations(opts?: { signal?: AbortSignal }): Promise<Authorization[]>;
  searchTools(
    req: ToolSearchRequest,
    opts?: { signal?: AbortSignal },
  ): Promise<(Declaration & { score: number })[]>;
  createRun(req: CreateRunRequest, opts?: { signal?: AbortSignal }): Promise<Run>;
  endRun(runId: string, opts?: { signal?: AbortSignal }): Promise<Run>;
}

/** An error from the Hub with its public code (e.g. declaration_changed, authorization_revoked). */
export interface HubErrorLike {
  status: number;
  publicCode: string;
  message: string;
}

export function hubErrorOf(err: unknown): HubErrorLike | null {
  if (err && typeof err === 'object' && 'publicCode' in err && 'status' in err) {
    const e = err as { status: unknown; publicCode: unknown; message?: unknown };
    if (typeof e.publicCode === 'string' && typeof e.status === 'number') {
      return {
        status: e.status,
        publicCode: e.publicCode,
        message: typeof e.message === 'string' ? e.message : '',
      };
    }
  }
  return null;
}
