/**
 * How tests run the Hub's CLI as a process of its own: `node <bundle> ARGS` (the bundle vitest's
 * global setup built for this run, test/setup/hub-bundle.ts), i.e. `npm run hub -- ARGS`.
 */
import { inject } from 'vitest';

/** The node arguments before the CLI's own: `[...hubCliArgv(), 'serve', ...]`. */
export const hubCliArgv = (): string[] => [inject('hubBundle')];
