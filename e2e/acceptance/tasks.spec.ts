// Chromium (browser host) run of the scenarios in ./scenarios/tasks.ts; electron.spec.ts runs the same bodies in Electron.
import { test } from '@playwright/test';
import { useChromiumApp } from './support/suite.js';
import { tasksSuite } from './scenarios/tasks.js';

const app = useChromiumApp(tasksSuite);
for (const s of tasksSuite.scenarios) test(s.title, () => s.run(app()));
