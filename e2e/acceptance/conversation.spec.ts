// Chromium (browser host) run of the scenarios in ./scenarios/conversation.ts; electron.spec.ts runs the same bodies in Electron.
import { test } from '@playwright/test';
import { useChromiumApp } from './support/suite.js';
import { conversationSuite } from './scenarios/conversation.js';

const app = useChromiumApp(conversationSuite);
for (const s of conversationSuite.scenarios) test(s.title, () => s.run(app()));
