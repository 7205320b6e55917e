/** The acceptance scenarios by number and name (the Chromium specs and the Electron variant share it). */
export const SCENARIOS = [
  { n: 1, file: 'conversation.spec.ts', name: 'switch capabilities: edit, query inventory, return to editing' },
  { n: 2, file: 'conversation.spec.ts', name: 'a follow-up reuses the loaded declarations: no further search' },
  { n: 3, file: 'tasks.spec.ts', name: 'pause during work' },
  { n: 4, file: 'recovery.spec.ts', name: 'lost acknowledgement across reopen' },
  { n: 5, file: 'tasks.spec.ts', name: 'accounting across messages and restarts' },
  { n: 6, file: 'recovery.spec.ts', name: 'pending approval across reopen' },
  { n: 7, file: 'recovery.spec.ts', name: 'fence saved, crash before the request reached the Hub' },
  { n: 8, file: 'boundaries.spec.ts', name: 'journal storage failure before dispatch' },
  { n: 9, file: 'boundaries.spec.ts', name: 'a revoked authorization blocks the whole scope' },
  { n: 10, file: 'conversation.spec.ts', name: '"thanks" makes zero Hub requests' },
  { n: 11, file: 'tasks.spec.ts', name: 'the three-product exercise' },
] as const;
