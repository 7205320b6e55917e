// `npm run bench`: every benchmark in turn, each in its own process so one cannot warm up or slow
// another. Figures and ratios are printed by each benchmark; nothing here asserts a number.
import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';

const root = resolve(import.meta.dirname, '..');
const benches = ['hub', 'tasks', 'mcp', 'journal', 'runtime', 'hub-client-conn', 'ui'] as const;
const failed: string[] = [];

for (const name of benches) {
  console.log(`\n##### bench:${name}`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', resolve(root, `bench/${name}.ts`)], {
    cwd: root,
    stdio: 'inherit',
  });
  if (r.status !== 0) failed.push(name);
}

console.log(
  failed.length === 0 ? '\nall benchmarks ran' : `\nbenchmarks that failed to run: ${failed.join(', ')}`,
);
process.exit(failed.length === 0 ? 0 : 1);
