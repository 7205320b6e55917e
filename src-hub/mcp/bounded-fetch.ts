/**
 * The fetch the Hub's Streamable HTTP client transports use: the same fetch, with each response's
 * body bounded so a server cannot make the Hub buffer without limit. A JSON answer may be at most
 * `maxMessageBytes`; an event stream at most `maxStreamBytes` in all (it ends with an error past it,
 * which the transport treats like a lost connection).
 */
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';

export class ResponseTooLargeError extends Error {
  constructor(limit: number) {
    super(`the MCP server's answer exceeded ${limit} bytes`);
  }
}

function bounded(body: ReadableStream<Uint8Array>, limit: number): ReadableStream<Uint8Array> {
  let seen = 0;
  return body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        seen += chunk.byteLength;
        if (seen > limit) controller.error(new ResponseTooLargeError(limit));
        else controller.enqueue(chunk);
      },
    }),
  );
}

export function boundedFetch(limits: { maxMessageBytes: number; maxStreamBytes: number }): FetchLike {
  return async (url, init) => {
    const res = await fetch(url, init);
    if (!res.body) return res;
    const stream = (res.headers.get('content-type') ?? '').includes('text/event-stream');
    const limit = stream ? limits.maxStreamBytes : limits.maxMessageBytes;
    const declared = Number(res.headers.get('content-length') ?? 'NaN');
    if (Number.isFinite(declared) && declared > limit) {
      await res.body.cancel().catch(() => undefined);
      throw new ResponseTooLargeError(limit);
    }
    return new Response(bounded(res.body, limit), {
      status: res.status,
      statusText: res.statusText,
      headers: res.headers,
    });
  };
}
