// The SQLite writer's timing mode (SqliteWriterOptions.onTiming, for bench/writer-latency.ts): one
// set of clock readings per batch answered, in the order the batch went through the two threads.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { createSqliteStore } from '../../src-hub/store/sqlite/store.js';
import type { WriterStamps } from '../../src-hub/store/sqlite/writer/protocol.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'hub-writer-timing-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

it('stamps each batch: posted, received, its transaction and within it its COMMIT, answered, arrived, in that order', async () => {
  const seen: Array<{ stamps: WriterStamps; arrivedAt: number }> = [];
  const store = createSqliteStore({
    dataDir: dir,
    onTiming: (stamps, arrivedAt) => seen.push({ stamps, arrivedAt }),
  });
  try {
    const before = seen.length;
    const issued = Number(process.hrtime.bigint());
    await store.appendEvent('c', 'test.event', {}, new Date().toISOString());
    const resumed = Number(process.hrtime.bigint());
    expect(seen.length - before).toBe(1);
    const { stamps: s, arrivedAt } = seen.at(-1)!;
    const order = [
      issued,
      s.postedAt,
      s.receivedAt,
      s.runFrom,
      s.commitFrom,
      s.commitTo,
      s.runTo,
      s.answeredAt,
      arrivedAt,
      resumed,
    ];
    expect(order).toEqual([...order].sort((a, b) => a - b));
    expect(s.commitTo).toBeGreaterThan(s.commitFrom); // the commit, its fsync included, took time
    expect(s.runTo).toBeGreaterThan(s.runFrom);
  } finally {
    await store.close();
  }
});
