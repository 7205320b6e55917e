/**
 * The order a batch applies its changes in (PostgreSQL): the changes that release permits (a call's
 * outcome freeing its in-flight slot, a refund, a recovery) after the others, so a batch never
 * hands the slots it frees to its own new permit requests. Several instances serve one task, each
 * with its own batches queued on the task row; had a batch granted its own requests the slots its
 * outcomes freed, the instance that held the slots first would keep them while the other
 * instances' batches, waiting for the row, found them taken again (in a three-instance test, 37
 * writes split about 1 / 35 / 1). Released last, the slots go to whichever batch takes the task
 * row next — another instance's, queued on the row lock, or this one's next.
 *
 * Still one change at a time against the same state, in an order that could have happened: no
 * caller of a batch has been answered, so the batch's changes are concurrent, and any order of
 * them is as if they had arrived in it (here: the outcomes just after the requests). The changes
 * of one call keep their order (a change of a call whose release was moved moves with it).
 */
import type { InvocationChange } from '../types.js';

/** A change that frees a task's slot (and with a refund its budget) without asking for a permit. */
const releases = (c: InvocationChange): boolean => c.release_permit !== undefined && c.permit === undefined;

/**
 * The indexes of `changes` in the order to apply them, or null to apply them as they are (no
 * release comes before a permit request). `null` entries are writes that are no invocation change:
 * they keep their place among the others.
 */
export function releasesLast(changes: ReadonlyArray<InvocationChange | null>): number[] | null {
  let released = false;
  let reordered = false;
  for (const c of changes) {
    if (c === null) continue;
    if (releases(c)) released = true;
    else if (released && c.permit !== undefined) {
      reordered = true;
      break;
    }
  }
  if (!reordered) return null;
  const first: number[] = [];
  const last: number[] = [];
  const moved = new Set<string>();
  changes.forEach((c, i) => {
    if (c !== null && (releases(c) || moved.has(c.invocation_id))) {
      moved.add(c.invocation_id);
      last.push(i);
    } else first.push(i);
  });
  return [...first, ...last];
}
