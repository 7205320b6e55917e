/**
 * Records an outcome the Hub already knows (a business answer, or "never sent") even when the store
 * is briefly unavailable: the write is retried with backoff until the store takes it or the Hub
 * shuts down. The call stays `dispatching` meanwhile — owned by this live instance, so no sibling
 * recovers it — and the caller waits for the recorded outcome instead of getting an answer the
 * store does not have. If the Hub shuts down first, the call is recovered as `unknown` later.
 */
import type { HubContext } from '../context.js';
import { StoreUnavailableError } from '../store/errors.js';

export async function whenStoreReturns<T>(
  ctx: HubContext,
  what: string,
  write: () => Promise<T>,
): Promise<T> {
  let delayMs = 100;
  for (;;) {
    try {
      return await write();
    } catch (err) {
      if (!(err instanceof StoreUnavailableError) || ctx.shutdown.aborted) throw err;
      ctx.logger.warn({ err: String(err), what }, 'the store is unavailable; retrying the write');
      await new Promise((resolve) => setTimeout(resolve, delayMs));
      delayMs = Math.min(delayMs * 2, 2_000);
    }
  }
}
