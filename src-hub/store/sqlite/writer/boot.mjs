// Starts the SQLite writer thread from the TypeScript sources (tsx), for `npm run hub`, tests and
// benchmarks; a bundled build loads the compiled writer module directly (client.ts).
import { register } from 'tsx/esm/api';
import { workerData } from 'node:worker_threads';

register();
await import(workerData.moduleUrl);
