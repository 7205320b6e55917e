/**
 * The SQLite writer thread: it owns the store's only write connection, so fsyncs never block the
 * Hub's event loop. It takes every write request that is waiting (up to MAX_BATCH) as one batch,
 * runs the batch as one transaction (group-commit.ts, which renders the batch's task views at its
 * end) and answers the batch after COMMIT; task views left marked are published just after.
 * Started by client.ts with `workerData.role === WRITER_ROLE`; loading this module anywhere else
 * does nothing.
 */
import {
  isMainThread,
  parentPort,
  receiveMessageOnPort,
  workerData,
  type MessagePort,
} from 'node:worker_threads';
import { STORE_RULES } from '../../../store-rules.js';
import { createSqliteSession } from '../session.js';
import { connectWriter } from '../open.js';
import { createGroupCommitter } from './group-commit.js';
import { serializeError, type MainMessage, type WriteRequest, type WriterMessage } from './protocol.js';

export const WRITER_ROLE = 'bailing-hub-sqlite-writer';
export const WRITER_MODULE_URL = import.meta.url;
const MAX_BATCH = 512;
/** How long after the last batch marked task views wait for another to carry them before they get a transaction of their own. */
const VIEW_DELAY_MS = 50;

export interface WriterData {
  role: typeof WRITER_ROLE;
  dataDir: string;
  /** How long marked task views wait for a batch to carry them (default VIEW_DELAY_MS; tests set it). */
  viewDelayMs?: number;
  /** Stamp each batch's answers with the thread's clock readings (WriterStamps; benchmarks). */
  timing?: boolean;
}

const clock = () => Number(process.hrtime.bigint());

function serve(port: MessagePort, data: WriterData): void {
  const post = (m: WriterMessage) => port.postMessage(m);
  let db: ReturnType<typeof connectWriter>;
  try {
    db = connectWriter(data.dataDir);
  } catch (err) {
    post({ kind: 'fatal', error: serializeError(err) });
    return;
  }
  const timing = data.timing === true;
  const committer = createGroupCommitter(
    db,
    { sql: createSqliteSession(db), rules: STORE_RULES },
    { timing },
  );
  const publishViews = () => {
    const clients = committer.publishViews();
    if (clients.length > 0) post({ kind: 'events', clients });
  };
  publishViews(); // views a crash left marked but unpublished
  let closing = false;
  let statsAsked = false;
  const flushes: number[] = [];
  const take = (m: MainMessage, batch: WriteRequest[]) => {
    if (m.kind === 'close') closing = true;
    else if (m.kind === 'stats') statsAsked = true;
    else if (m.kind === 'flush') flushes.push(m.id);
    else batch.push(...m.requests);
  };
  // A batch is answered as soon as it commits, its task views with it. Views left marked (one that
  // could not be rendered in its batch, or a crash's) ride on the next batch's transaction; only
  // when no batch comes for viewDelayMs do they get a transaction of their own. The timer is armed
  // once and, while batches keep coming, re-armed for what is left of the delay after the last
  // batch (a batch carried whatever was marked before it).
  const viewDelayMs = data.viewDelayMs ?? VIEW_DELAY_MS;
  let viewTimer: NodeJS.Timeout | null = null;
  let lastBatchAt = 0;
  const publishWhenIdle = () => {
    const idleFor = performance.now() - lastBatchAt;
    if (!committer.viewsPending()) viewTimer = null;
    else if (idleFor < viewDelayMs) viewTimer = setTimeout(publishWhenIdle, viewDelayMs - idleFor);
    else {
      viewTimer = null;
      publishViews();
    }
  };
  const publishLater = () => {
    viewTimer ??= setTimeout(publishWhenIdle, viewDelayMs);
  };
  const pump = (first: MainMessage) => {
    let next: MainMessage | undefined = first;
    while (next) {
      const receivedAt = timing ? clock() : 0;
      const postedAt = next.kind === 'writes' ? (next.postedAt ?? 0) : 0;
      const batch: WriteRequest[] = [];
      take(next, batch);
      while (batch.length < MAX_BATCH) {
        const more = receiveMessageOnPort(port);
        if (!more) break;
        take(more.message as MainMessage, batch);
      }
      if (batch.length > 0) {
        const runFrom = timing ? clock() : 0;
        const { answers, clients } = committer.run(batch);
        const runTo = timing ? clock() : 0;
        lastBatchAt = performance.now();
        post({
          kind: 'answers',
          answers,
          ...(clients.length > 0 ? { clients } : {}),
          ...(timing
            ? {
                timing: {
                  postedAt,
                  receivedAt,
                  runFrom,
                  runTo,
                  commitFrom: committer.lastCommit.from,
                  commitTo: committer.lastCommit.to,
                  answeredAt: clock(),
                },
              }
            : {}),
        });
      }
      next = receiveMessageOnPort(port)?.message as MainMessage | undefined;
      if (flushes.length > 0 || closing) publishViews();
      else if (next === undefined && committer.viewsPending()) publishLater();
      if (flushes.length > 0) post({ kind: 'flushed', ids: flushes.splice(0) });
      if (statsAsked) {
        statsAsked = false;
        post({ kind: 'stats', stats: { ...committer.stats } });
      }
      if (closing) {
        if (viewTimer) clearTimeout(viewTimer);
        db.close();
        port.close();
        return;
      }
    }
  };
  port.on('message', pump);
  post({ kind: 'ready' });
}

if (!isMainThread && parentPort && (workerData as WriterData | undefined)?.role === WRITER_ROLE) {
  serve(parentPort, workerData as WriterData);
}
