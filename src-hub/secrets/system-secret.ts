/** A business system's signing secret as the services use it: opened right before a request is signed. */
import type { HubContext } from '../context.js';
import type { SystemRecord } from '../store/types.js';
import { SECRET_CONTEXTS, SecretUnreadableError } from './sealed.js';

/** The system's signing secret, opened right before use; null when the Hub's key cannot open it (logged). */
export function openSigningSecret(ctx: HubContext, system: SystemRecord): string | null {
  try {
    return ctx.secrets.open(SECRET_CONTEXTS.systemSigningSecret(system.system_id), system.signing_secret);
  } catch (err) {
    ctx.logger.error(
      {
        system_id: system.system_id,
        reason: err instanceof SecretUnreadableError ? err.reason : String(err),
      },
      "a system's signing secret cannot be opened; nothing is sent to it",
    );
    return null;
  }
}
