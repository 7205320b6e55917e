// A real desk (test/app/support.ts) connected to its Hub, with the renderer's stores wired to it in
// process (bootstrap over inProcessApi): what the renderer tests that drive whole screens start from.
import { waitFor } from '@testing-library/react';
import { expect } from 'vitest';
import { bootstrap } from '../../../src-renderer/src/bootstrap.js';
import { startTestDesk, type TestDesk } from '../../app/support.js';
import { inProcessApi } from './in-process-api.js';

export interface WiredDesk {
  desk: TestDesk;
  /** Unwires the renderer and removes the desk with its data. */
  close(): Promise<void>;
}

export async function startWiredDesk(): Promise<WiredDesk> {
  const desk = await startTestDesk();
  await waitFor(() => expect(desk.root.gateway.connection().state).toBe('connected'), { timeout: 10_000 });
  const unwire = await bootstrap(inProcessApi(desk.root.router, desk.root.bus));
  return {
    desk,
    async close() {
      unwire();
      await desk.cleanup();
    },
  };
}
