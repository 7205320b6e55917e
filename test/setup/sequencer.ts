/**
 * The order vitest starts test files in: the longest-running files first, so that with several
 * files at once the run does not end on one long file started last. vitest orders by the last
 * run's durations when it has them (node_modules/.vite); a fresh clone (CI) has none, so the
 * files measured to take longest start first either way, the rest in vitest's own order.
 */
import { relative } from 'node:path';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Files measured to take longest (the JSON reporter's durations on the 2-core machine, with other
 * files beside them), longest first; a file of test/hub/ counts for both of its projects.
 */
export const LONGEST_FILES: readonly string[] = [
  'test/architecture/keytar-absent.test.ts',
  'test/store/conformance.test.ts',
  'test/hub/tasks-restart.test.ts',
  'test/hub/secrets-at-rest.test.ts',
  'test/hub/tasks.test.ts',
  'test/hub/invocations.test.ts',
  'test/hub/http-hardening.test.ts',
  'test/hub/fuzz-routes.property.test.ts',
  'test/hub/restart.test.ts',
  'test/hub/mcp/cli.test.ts',
  'test/store/sqlite-writer.test.ts',
  'test/runtime/host-restart.test.ts',
  'test/hub/mcp/everything.test.ts',
  'test/hub/system-retire.test.ts',
  'test/hub/tasks-concurrency.test.ts',
  'test/hub/mcp/conformance/conformance.test.ts',
];

export class HeaviestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const sorted = await super.sort(files);
    const rank = (spec: TestSpecification) => {
      const at = LONGEST_FILES.indexOf(relative(spec.project.config.root, spec.moduleId));
      return at < 0 ? LONGEST_FILES.length : at;
    };
    // Array.prototype.sort is stable: files outside the list keep vitest's order
    return sorted.sort(
      (a, b) =>
        a.project.config.sequence.groupOrder - b.project.config.sequence.groupOrder || rank(a) - rank(b),
    );
  }
}
