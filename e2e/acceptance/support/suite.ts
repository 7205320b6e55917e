/**
 * A group of acceptance scenarios that share one stack (one scripted model), written once against
 * `AppUnderTest` so the Chromium specs and the Electron variant run the same bodies.
 */
import { test } from '@playwright/test';
import type { Script } from '../../../demo/scripted-model/script.js';
import type { StrictProviderOption } from '../../harness/stack.js';
import { startApp, type AppUnderTest } from './stack-fixture.js';

export interface Scenario {
  /** The test title (starts with the scenario number). */
  title: string;
  run(app: AppUnderTest): Promise<void>;
}

export interface ScenarioSuite {
  /** Short name (temp directory). */
  name: string;
  script: Script;
  /** 'serial': later scenarios build on earlier ones; 'default': independent (a failure does not stop the others). */
  mode: 'serial' | 'default';
  /** Runs once after the app is up, before the first scenario. */
  setup?: (app: AppUnderTest) => Promise<void>;
  scenarios: Scenario[];
}

/**
 * Starts the suite's stack with the browser host in Chromium (describe mode, beforeAll, afterAll)
 * and returns the app getter. The spec file itself calls `test()` for each scenario, so that
 * Playwright reports each test at its spec file.
 */
export function useChromiumApp(
  suite: ScenarioSuite,
  opts: { provider?: StrictProviderOption } = {},
): () => AppUnderTest {
  test.describe.configure({ mode: suite.mode, timeout: 180_000 });
  let app: AppUnderTest | undefined;
  test.beforeAll(async ({ browser }) => {
    app = await startApp(
      browser,
      opts.provider ? `${suite.name}-provider` : suite.name,
      suite.script,
      opts.provider,
    );
    await suite.setup?.(app);
  });
  test.afterAll(async () => {
    await app?.close();
  });
  return () => {
    if (!app) throw new Error('the stack did not start');
    return app;
  };
}
