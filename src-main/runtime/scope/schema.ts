import { z } from 'zod';
import type { SessionScope } from '../invocation-ports.js';

const id = z.string().min(1).max(200);
export const ScopeMemberSchema = z.strictObject({
  authorization_ref: id,
  authorization_revision: z.number().int().min(1),
  system_id: id,
  account: z.string().min(1).max(200),
});
export const SessionScopeSchema = z.strictObject({
  sessionId: id,
  hubId: id,
  clientId: id,
  workspaceId: id,
  connectionKey: z.string().min(1).max(500),
  members: z.array(ScopeMemberSchema).max(64),
  fingerprint: z.string().min(1).max(128),
  revision: z.number().int().min(1),
  taskId: id.nullable(),
});

export function parseScope(value: unknown): SessionScope {
  return SessionScopeSchema.parse(value);
}
