/** What the conversation handlers share: the runtime, the Hub gateway, and the check that a conversation exists. */
import type { DeskRuntime } from '../runtime/desk-runtime.js';
import { AppError } from './errors.js';
import type { HubGateway } from './hub-gateway.js';

export interface RuntimeHandlerDeps {
  runtime: DeskRuntime;
  hub: HubGateway;
}

export async function requireSession(runtime: DeskRuntime, sessionId: string) {
  const all = await runtime.listSessions();
  const found = all.find((s) => s.sessionId === sessionId);
  if (!found) throw new AppError('session_not_found', 'No such conversation.');
  return found;
}
