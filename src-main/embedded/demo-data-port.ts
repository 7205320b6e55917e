/** The embedded demo systems' data as Settings sees it (the handlers' DemoDataPort). */
import type { DemoDataStatus, DemoSystems } from '../../demo/index.js';
import type { DemoDataPort } from '../handlers/demo-data.js';

const systemView = (system_id: string, name: string, s: DemoDataStatus) => ({
  system_id,
  name,
  state: s.state,
  detail: s.detail,
  seeded_at: s.seeded_at,
  reset_at: s.reset_at,
});

export function createDemoDataPort(
  demo: DemoSystems,
  dir: string | null,
  log: (msg: string) => void = () => {},
): DemoDataPort {
  const names = new Map(demo.all().map((s) => [s.systemId, s.name]));
  return {
    view: () => ({
      available: true,
      dir,
      systems: demo.dataStatus().map((s) => systemView(s.system_id, s.name, s.status)),
    }),
    reset() {
      const results = demo.resetData();
      for (const r of results) {
        if (!r.reset) log(`Demo data of ${r.system_id} could not be reset (${r.status.state}).`);
        else if (r.set_aside)
          log(`Demo data of ${r.system_id}: the unusable file was kept as ${r.set_aside}.`);
      }
      log('Demo data reset to the seed (ledgers and settled keys kept; the Hub untouched).');
      return {
        systems: results.map((r) => ({
          ...systemView(r.system_id, names.get(r.system_id) ?? r.system_id, r.status),
          reset: r.reset,
          set_aside: r.set_aside,
        })),
      };
    },
  };
}
