/**
 * Settings' "Demo data" handlers over a port the embedded default provides (src-main/embedded/
 * demo-data-port.ts); a launch without embedded demo systems (a remote Hub) has none: the view says
 * so and a reset is refused with `demo_data_not_local`.
 */
import type { DemoDataResetView, DemoDataView } from '../../src-shared/ipc/demo-data-views.js';
import { AppError } from './errors.js';

export interface DemoDataPort {
  view(): DemoDataView;
  /** Resets every demo system it can; the answer says which were reset. */
  reset(): DemoDataResetView;
}

export function demoDataHandlers(port: DemoDataPort | null) {
  return {
    async getDemoData(): Promise<DemoDataView> {
      return port ? port.view() : { available: false, dir: null, systems: [] };
    },
    async resetDemoData(): Promise<DemoDataResetView> {
      if (!port)
        throw new AppError(
          'demo_data_not_local',
          'Demo data can only be reset for the embedded local Hub and its demo systems.',
        );
      return port.reset();
    },
  };
}
