/**
 * The SQLite writer thread: it owns the store's only write connection, so fsyncs never block the
 * Hub's event loop. It takes every write request that is waiting (up to MAX_BATCH) as one batch,
 * runs the batch as one transaction (group-commit.ts) and answers the batch after COMMIT.
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
import { connect } from '../open.js';
import { createGroupCommitter } from './group-commit.js';
import { serializeError, type MainMessage, type WriteRequest, type WriterMessage } from './protocol.js';

export const WRITER_ROLE = 'bailing-hub-sqlite-writer';
export const WRITER_MODULE_URL = import.meta.url;
const MAX_BATCH = 512;

export interface WriterData {
  role: typeof WRITER_ROLE;
  dataDir: string;
}

function serve(port: MessagePort, data: WriterData): void {
  const post = (m: WriterMessage) => port.postMessage(m);
  let db: ReturnType<typeof connect>;
  try {
    db = connect(data.dataDir);
  } catch (err) {
    post({ kind: 'fatal', error: serializeError(err) });
    return;
  }
  const committer = createGroupCommitter(db, { sql: createSqliteSession(db), rules: STORE_RULES });
  let closing = false;
  let statsAsked = false;
  const take = (m: MainMessage, batch: WriteRequest[]) => {
    if (m.kind === 'close') closing = true;
    else if (m.kind === 'stats') statsAsked = true;
    else batch.push(m.request);
  };
  port.on('message', (first: MainMessage) => {
    const batch: WriteRequest[] = [];
    take(first, batch);
    while (batch.length < MAX_BATCH) {
      const next = receiveMessageOnPort(port);
      if (!next) break;
      take(next.message as MainMessage, batch);
    }
    if (batch.length > 0) post({ kind: 'answers', answers: committer.run(batch) });
    if (statsAsked) {
      statsAsked = false;
      post({ kind: 'stats', stats: { ...committer.stats } });
    }
    if (closing) {
      db.close();
      port.close();
    }
  });
  post({ kind: 'ready' });
}

if (!isMainThread && parentPort && (workerData as WriterData | undefined)?.role === WRITER_ROLE) {
  serve(parentPort, workerData as WriterData);
}
