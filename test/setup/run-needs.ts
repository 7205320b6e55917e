/**
 * Whether a run needs the global setups' servers and builds (the PostgreSQL cluster, the Hub
 * bundle): not when it runs only the renderer project (jsdom components, e.g. the renderer suite
 * test/architecture/keytar-absent.test.ts runs in a copy of the repository).
 */
import type { TestProject } from 'vitest/node';

export const runNeedsServers = (project: TestProject): boolean =>
  project.vitest.projects.some((p) => p.name !== 'renderer');
