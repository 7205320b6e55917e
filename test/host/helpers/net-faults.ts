/** Small fault fixtures for Hub client tests: a port nothing listens on, and the error a call failed with. */
import { createServer, type AddressInfo } from 'node:net';
import { expect } from 'vitest';
import { HubClientError } from '../../../src-main/hub-client/index.js';

/** A 127.0.0.1 port that was free a moment ago and now refuses connections. */
export function closedPort(): Promise<number> {
  return new Promise<number>((resolve) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as AddressInfo).port;
      s.close(() => resolve(p));
    });
  });
}

/** The HubClientError `p` rejects with (fails the test when it resolves or rejects with anything else). */
export async function caughtHubError(p: Promise<unknown>): Promise<HubClientError> {
  try {
    await p;
  } catch (err) {
    expect(err).toBeInstanceOf(HubClientError);
    return err as HubClientError;
  }
  throw new Error('expected a failure');
}
