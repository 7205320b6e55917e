// Chromium (browser host) run of the scenarios in ./scenarios/recovery.ts; electron.spec.ts runs the same bodies in Electron.
import { test } from '@playwright/test';
import { useChromiumApp } from './support/suite.js';
import { recoverySuite } from './scenarios/recovery.js';

const app = useChromiumApp(recoverySuite);
for (const s of recoverySuite.scenarios) test(s.title, () => s.run(app()));
