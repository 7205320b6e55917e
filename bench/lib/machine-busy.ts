/**
 * How busy the whole machine's CPUs were between two readings of /proc/stat (Linux; null
 * elsewhere): every process counts, the benchmark's and anyone else's. A case whose busy fraction
 * is near 1 is bound by CPU; one well below 1 waits on something else (commits, wake-ups, the
 * network stack's turns).
 */
import { readFileSync } from 'node:fs';

/** The `cpu` line of /proc/stat: clock ticks since boot, summed over all CPUs. */
export interface CpuTicks {
  total: number;
  /** idle + iowait: nothing to run. */
  idle: number;
  /** Time the hypervisor gave this VM's CPUs to someone else. */
  steal: number;
}

export interface MachineBusy {
  /** Share of all CPUs' time spent running something (user, nice, system, irq, softirq), 0–1. */
  busy: number;
  /** The same as CPUs: busy × the number of CPUs. */
  cores: number;
  /** Share of the CPUs' time the hypervisor took (steal), 0–1. */
  steal: number;
}

export function readCpuTicks(): CpuTicks | null {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n', 1)[0] ?? '';
    if (!line.startsWith('cpu ')) return null;
    // user nice system idle iowait irq softirq steal (guest time is already inside user)
    const v = line.slice(4).trim().split(/\s+/).slice(0, 8).map(Number);
    if (v.length < 8 || v.some((x) => !Number.isFinite(x))) return null;
    const [user, nice, system, idle, iowait, irq, softirq, steal] = v as [
      number,
      number,
      number,
      number,
      number,
      number,
      number,
      number,
    ];
    return {
      total: user + nice + system + idle + iowait + irq + softirq + steal,
      idle: idle + iowait,
      steal,
    };
  } catch {
    return null;
  }
}

export function busyBetween(
  before: CpuTicks | null,
  after: CpuTicks | null,
  cpuCount: number,
): MachineBusy | null {
  if (!before || !after) return null;
  const total = after.total - before.total;
  if (total <= 0) return null;
  const steal = (after.steal - before.steal) / total;
  const busy = (total - (after.idle - before.idle) - (after.steal - before.steal)) / total;
  return { busy, cores: busy * cpuCount, steal };
}

/** Runs `work` and reports how busy the machine was meanwhile. */
export async function whileMeasuringBusy<T>(
  cpuCount: number,
  work: () => Promise<T>,
): Promise<{ value: T; busy: MachineBusy | null }> {
  const before = readCpuTicks();
  const value = await work();
  return { value, busy: busyBetween(before, readCpuTicks(), cpuCount) };
}
