// Why Playwright skipped what it skipped: its list reporter shows a skipped test as "-" with no
// reason, so the test command prints the reasons (test.skip(condition, reason) annotations) from
// the JSON report, grouped, before the summary line.

/** @param {unknown} report Playwright's JSON report. @returns {Map<string, number>} reason → tests skipped for it */
export function skipReasons(report) {
  const reasons = new Map();
  const visit = (suite) => {
    for (const spec of suite?.specs ?? []) {
      for (const test of spec?.tests ?? []) {
        if (test?.status !== 'skipped') continue;
        const notes = [
          ...(test.annotations ?? []),
          ...(test.results ?? []).flatMap((r) => r?.annotations ?? []),
        ];
        const skip = notes.find((a) => a?.type === 'skip' && typeof a.description === 'string');
        const reason = skip?.description ?? 'no reason given';
        reasons.set(reason, (reasons.get(reason) ?? 0) + 1);
      }
    }
    for (const child of suite?.suites ?? []) visit(child);
  };
  for (const suite of report?.suites ?? []) visit(suite);
  return reasons;
}

/** The lines the test command prints: one per reason. */
export function skipLines(report) {
  return [...skipReasons(report)].map(
    ([reason, n]) => `Playwright skipped ${n} test${n === 1 ? '' : 's'}: ${reason}`,
  );
}
