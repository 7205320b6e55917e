// Types of ./playwright-skips.mjs (why Playwright skipped what it skipped).
export function skipReasons(report: unknown): Map<string, number>;
export function skipLines(report: unknown): string[];
