// Chromium (browser host) run of the scenarios in ./scenarios/boundaries.ts; electron.spec.ts runs the same bodies in Electron.
import { test } from '@playwright/test';
import { useChromiumApp } from './support/suite.js';
import { boundariesSuite } from './scenarios/boundaries.js';

const app = useChromiumApp(boundariesSuite);
for (const s of boundariesSuite.scenarios) test(s.title, () => s.run(app()));
