/**
 * npm run bench:round — the benchmark round docs/operations.md "Benchmarks (measured)" reports:
 * the same benches from two checkouts ("before" and "after"), run back to back in pairs whose
 * order alternates, so a drift of the machine's speed (2× within the hour on the project's VM)
 * falls on both alike. Only pairs are compared.
 *
 *   BENCH_ROUND=/path/to/before[,/path/to/after] npm run bench:round
 *
 * "after" defaults to this checkout. Each checkout needs its node_modules. Every run's whole
 * output is kept in BENCH_ROUND_OUT (default a new folder under the system's temp folder); at the
 * end the key lines of each run are printed side by side by step. BENCH_ROUND_STEPS picks steps
 * by name (comma-separated), BENCH_ROUND_PAIRS overrides every step's number of pairs. Figures,
 * never asserted.
 */
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

interface Step {
  name: string;
  script: string;
  env: Record<string, string>;
  pairs: number;
}

const STEPS: Step[] = [
  { name: 'tasks-sqlite', script: 'bench/tasks.ts', env: { BENCH_SETUPS: 'sqlite' }, pairs: 2 },
  { name: 'pg-permits', script: 'bench/pg-permits.ts', env: { BENCH_KINDS: 'permits' }, pairs: 2 },
  {
    name: 'pg-untasked',
    script: 'bench/pg-permits.ts',
    env: { BENCH_KINDS: 'untasked', BENCH_CONCURRENCY: '16', BENCH_PERMIT_WARMUP: '2000' },
    pairs: 2,
  },
  { name: 'tasks-postgres', script: 'bench/tasks.ts', env: { BENCH_SETUPS: 'postgres' }, pairs: 1 },
  {
    name: 'hub-sqlite',
    script: 'bench/hub.ts',
    env: { BENCH_SETUPS: 'sqlite', BENCH_CALLS: '1500' },
    pairs: 1,
  },
  { name: 'hub-postgres', script: 'bench/hub.ts', env: { BENCH_SETUPS: 'postgres' }, pairs: 1 },
];

/** Lines worth reading side by side: figures per second, p50s, CPU, ratios, floors, budgets. */
const KEY_LINE = /per s|\/s\b|p50|cpu|×|floor|budget|statements|bare|fsync|\bload\b/i;
const MAX_KEY_LINES = 60;

const dirs = (process.env.BENCH_ROUND ?? '')
  .split(',')
  .map((d) => d.trim())
  .filter(Boolean)
  .map((d) => resolve(d));
const before = dirs[0];
const after = dirs[1] ?? resolve(new URL('..', import.meta.url).pathname);
if (!before || dirs.length > 2) {
  console.error('usage: BENCH_ROUND=/path/to/before[,/path/to/after] npm run bench:round');
  process.exit(2);
}
const chosen = (process.env.BENCH_ROUND_STEPS ?? '')
  .split(',')
  .map((s) => s.trim())
  .filter(Boolean);
const unknown = chosen.filter((c) => !STEPS.some((s) => s.name === c));
if (unknown.length > 0) {
  console.error(`unknown steps: ${unknown.join(', ')} (steps: ${STEPS.map((s) => s.name).join(', ')})`);
  process.exit(2);
}
const pairsOverride = process.env.BENCH_ROUND_PAIRS ? Number(process.env.BENCH_ROUND_PAIRS) : null;
if (pairsOverride !== null && !(Number.isInteger(pairsOverride) && pairsOverride > 0)) {
  console.error('BENCH_ROUND_PAIRS must be a positive whole number');
  process.exit(2);
}
const out = process.env.BENCH_ROUND_OUT ?? mkdtempSync(join(tmpdir(), 'bench-round-'));
mkdirSync(out, { recursive: true });

const steps = STEPS.filter((s) => chosen.length === 0 || chosen.includes(s.name));
const loads = () =>
  loadavg()
    .map((l) => l.toFixed(2))
    .join(' ');

interface RunLog {
  step: string;
  side: 'before' | 'after';
  pair: number;
  file: string;
}

function runOnce(step: Step, side: 'before' | 'after', pair: number): RunLog {
  const cwd = side === 'before' ? before! : after;
  const file = join(out, `${step.name}.${pair}.${side}.log`);
  const started = new Date().toISOString();
  const loadAtStart = loads();
  console.log(`${started} ${step.name} pair ${pair} ${side} (${cwd}), load ${loadAtStart}`);
  const r = spawnSync(join(cwd, 'node_modules/.bin/tsx'), [step.script], {
    cwd,
    env: { ...process.env, ...step.env },
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  const header = `# ${step.name} pair ${pair} ${side}: ${cwd} ${step.script} ${JSON.stringify(step.env)}\n# started ${started}, load ${loadAtStart}; ended ${new Date().toISOString()}, load ${loads()}; exit ${r.status ?? r.signal}\n`;
  writeFileSync(file, header + (r.stdout ?? '') + (r.stderr ? `\n# stderr\n${r.stderr}` : ''));
  if (r.status !== 0) console.log(`  exit ${r.status ?? r.signal}: see ${file}`);
  return { step: step.name, side, pair, file };
}

const logs: RunLog[] = [];
console.log(`bench round: before ${before}, after ${after}; logs in ${out}`);
for (const step of steps) {
  const pairs = pairsOverride ?? step.pairs;
  for (let pair = 1; pair <= pairs; pair++) {
    const order: Array<'before' | 'after'> = pair % 2 === 1 ? ['before', 'after'] : ['after', 'before'];
    for (const side of order) logs.push(runOnce(step, side, pair));
  }
}

for (const log of logs) {
  const lines = readFileSync(log.file, 'utf8')
    .split('\n')
    .filter((l) => l.startsWith('# started') || KEY_LINE.test(l))
    .slice(0, MAX_KEY_LINES);
  console.log(`\n=== ${log.step} pair ${log.pair} ${log.side} (${log.file})`);
  for (const l of lines) console.log(l);
}
console.log(`\nbench round done: ${logs.length} runs, logs in ${out}`);
