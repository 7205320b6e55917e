/**
 * Where a Hub thread's time went, from a CPU profile written under BENCH_HUB_CPU_PROF (one file per
 * thread: the main thread's, the SQLite writer's, the loader's):
 *
 *   npx tsx bench/lib/hub-profile-summary.ts FILE [FROM_S TO_S]
 *
 * prints the busy samples of FILE (optionally only those FROM_S..TO_S seconds after the profile
 * started, e.g. one case of bench:hub; `--timeline` prints the busy share per second to find it)
 * by category — the store's reads and writer messages, the outbound request, the Hub's own code,
 * Fastify, Node's HTTP and sockets, garbage collection — and the functions with the most self time.
 * A profile samples wall time: a thread blocked in a system call (an fsync) counts as busy there.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** The category of a sample, from its whole stack (the first rule that matches wins). */
const CATEGORIES: Array<[string, (stack: ProfileNode[], leaf: ProfileNode) => boolean]> = [
  ['garbage collection', (_s, leaf) => leaf.callFrame.functionName === '(garbage collector)'],
  ['V8 (program)', (_s, leaf) => leaf.callFrame.functionName === '(program)'],
  [
    'SQLite writer messages (post, receive, answers)',
    (s, leaf) => leaf.callFrame.functionName === 'postMessage' || inFile(s, /store\/sqlite\/writer\/client/),
  ],
  [
    'SQLite statements (main thread: reads; writer: the writes of a batch)',
    (_s, leaf) => /store\/sqlite\/session\.ts/.test(leaf.callFrame.url),
  ],
  [
    'SQLite writer: BEGIN, savepoints, COMMIT (its fsync included)',
    (_s, leaf) => /store\/sqlite\/writer\/group-commit\.ts/.test(leaf.callFrame.url),
  ],
  ['SQLite writer: the operations around the statements', (s) => inFile(s, /store\/sqlite\/writer\//)],
  ['store code around the reads', (s) => inFile(s, /src-hub\/store\//)],
  ['outbound request (dispatch/http.ts and Node below it)', (s) => inFile(s, /src-hub\/dispatch\/http\.ts/)],
  ['Hub code (and Node/crypto it calls)', (s) => inFile(s, /src-hub\/|src-shared\//)],
  ['Fastify', (s) => inFile(s, /node_modules\/(fastify|find-my-way|@fastify)\//)],
  ['Node (HTTP, streams, sockets, timers)', () => true],
];

const inFile = (stack: ProfileNode[], re: RegExp) => stack.some((n) => re.test(n.callFrame.url));

const shortUrl = (url: string) =>
  url
    .replace(/^.*\/node_modules\//, 'node_modules/')
    .replace(/^file:\/\/.*?\/(src-hub|src-shared|bench)\//, '$1/');

function summarize(profile: Profile, fromS: number, toS: number): void {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const categories = new Map<string, number>();
  const self = new Map<string, number>();
  let at = profile.startTime;
  let all = 0;
  let busy = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const s = (at - profile.startTime) / 1e6;
    if (s < fromS || s >= toS) continue;
    all += 1;
    const leaf = byId.get(profile.samples[i]!)!;
    if (leaf.callFrame.functionName === '(idle)') continue;
    busy += 1;
    const stack: ProfileNode[] = [];
    for (let id: number | undefined = leaf.id; id !== undefined; id = parent.get(id))
      stack.push(byId.get(id)!);
    const category = CATEGORIES.find(([, test]) => test(stack, leaf))![0];
    categories.set(category, (categories.get(category) ?? 0) + 1);
    const name = `${leaf.callFrame.functionName || '(anonymous)'} ${shortUrl(leaf.callFrame.url)}`;
    self.set(name, (self.get(name) ?? 0) + 1);
  }
  const pct = (n: number, of: number) => `${((100 * n) / Math.max(1, of)).toFixed(1).padStart(5)}%`;
  console.log(`busy ${pct(busy, all)} of ${all} samples; shares below are of the busy samples`);
  for (const [name, n] of [...categories].sort((a, b) => b[1] - a[1]))
    console.log(`${pct(n, busy)}  ${name}`);
  console.log('\nmost self time:');
  for (const [name, n] of [...self].sort((a, b) => b[1] - a[1]).slice(0, 25))
    console.log(`${pct(n, busy)}  ${name}`);
}

function timeline(profile: Profile): void {
  const seconds = new Map<number, { all: number; busy: number }>();
  let at = profile.startTime;
  const idle = new Set(profile.nodes.filter((n) => n.callFrame.functionName === '(idle)').map((n) => n.id));
  for (let i = 0; i < profile.samples.length; i++) {
    at += profile.timeDeltas[i] ?? 0;
    const s = Math.floor((at - profile.startTime) / 1e6);
    const e = seconds.get(s) ?? { all: 0, busy: 0 };
    e.all += 1;
    if (!idle.has(profile.samples[i]!)) e.busy += 1;
    seconds.set(s, e);
  }
  for (const [s, e] of seconds)
    console.log(`${String(s).padStart(4)} s  busy ${((100 * e.busy) / e.all).toFixed(0)}%`);
}

const [file, a, b] = process.argv.slice(2);
if (!file) {
  console.error('usage: hub-profile-summary.ts FILE [FROM_S TO_S | --timeline]');
  process.exit(2);
}
const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
if (a === '--timeline') timeline(profile);
else summarize(profile, a === undefined ? 0 : Number(a), b === undefined ? Infinity : Number(b));
