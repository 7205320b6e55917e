/**
 * Where a proxy floor's calls spent their time, per stage, since the last reading (proxy-floor.ts):
 * each stage's p50 and mean (ms), and how busy the process's main thread was (event-loop
 * utilization: near 1, calls queue for the main thread's CPU). A reading starts the next interval.
 */
import { performance, type EventLoopUtilization } from 'node:perf_hooks';
import { percentile } from './stats.js';

export const STAGES = ['in proxy', 'permit commit', 'shop', 'outcome commit'] as const;
export type Stage = (typeof STAGES)[number];

export interface StageReading {
  calls: number;
  p50: Partial<Record<Stage, number>>;
  mean: Partial<Record<Stage, number>>;
  /** Share of the interval the main thread was running (0–1). */
  mainBusy: number;
}

export function createStageClock() {
  let samples = new Map<Stage, number[]>();
  let elu: EventLoopUtilization = performance.eventLoopUtilization();
  return {
    record(stage: Stage, ms: number): void {
      let list = samples.get(stage);
      if (!list) samples.set(stage, (list = []));
      list.push(ms);
    },
    read(): StageReading {
      const now = performance.eventLoopUtilization();
      const mainBusy = performance.eventLoopUtilization(now, elu).utilization;
      elu = now;
      const reading: StageReading = {
        calls: samples.get('in proxy')?.length ?? 0,
        p50: {},
        mean: {},
        mainBusy,
      };
      for (const [stage, list] of samples) {
        reading.p50[stage] = percentile(
          [...list].sort((a, b) => a - b),
          50,
        );
        reading.mean[stage] = list.reduce((a, b) => a + b, 0) / list.length;
      }
      samples = new Map();
      return reading;
    },
  };
}
