/**
 * Writes chunks as Server-Sent Events (`data: {…}` each, `data: [DONE]` after a stream that ended
 * well). `ending: 'stall'` writes the chunks and then nothing more, leaving the connection open
 * until the client (or the emulator's close) ends it: a provider that went silent mid-stream.
 */
import type { ServerResponse } from 'node:http';
import type { WireChunk } from './chunks.js';

export async function writeSse(
  res: ServerResponse,
  chunks: WireChunk[],
  meta: { id: string; created: number; model: string },
  pause: () => Promise<void>,
  ending: 'end' | 'stall' = 'end',
): Promise<void> {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  let failed = false;
  for (const c of chunks) {
    if (res.destroyed) return;
    if ('error' in c) {
      res.write(`data: ${JSON.stringify(c)}\n\n`);
      failed = true;
      break;
    }
    res.write(
      `data: ${JSON.stringify({ id: meta.id, object: 'chat.completion.chunk', created: meta.created, model: meta.model, ...c })}\n\n`,
    );
    await pause();
  }
  if (ending === 'stall' && !failed) return;
  if (!res.destroyed) res.end(failed ? undefined : 'data: [DONE]\n\n');
}
