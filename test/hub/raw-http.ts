/** Raw HTTP/1.1 over a TCP socket, for requests no well-behaved client library would send. */
import { connect } from 'node:net';

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** How the exchange ended from the client's side ('closed' also when a complete response arrived). */
  end: 'closed' | 'reset' | 'timeout';
}

/** Drops interim 1xx responses (e.g. 100 Continue) in front of the final one. */
function finalResponse(text: string): string {
  let t = text;
  while (/^HTTP\/1\.1 1\d\d/.test(t)) {
    const end = t.indexOf('\r\n\r\n');
    if (end < 0) return t;
    t = t.slice(end + 4);
  }
  return t;
}

/**
 * Sends `head` (and then `body`, possibly large, written with backpressure) and reads the first
 * response. Resolves when the socket closes, errors, or `timeoutMs` passes.
 */
export function rawExchange(
  baseUrl: string,
  head: string,
  body: Buffer | string = '',
  timeoutMs = 15_000,
  /** Like a simple client: read nothing until the whole body is written. */
  readAfterSending = false,
): Promise<RawAnswer> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname);
    const chunks: Buffer[] = [];
    let done = false;
    const finish = (end: RawAnswer['end']) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = finalResponse(Buffer.concat(chunks).toString('latin1'));
      const sep = text.indexOf('\r\n\r\n');
      const headText = sep >= 0 ? text.slice(0, sep) : text;
      const [statusLine = '', ...lines] = headText.split('\r\n');
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(':');
        if (i > 0) headers[l.slice(0, i).trim().toLowerCase()] = l.slice(i + 1).trim();
      }
      let rest = sep >= 0 ? text.slice(sep + 4) : '';
      const length = headers['content-length'];
      if (length !== undefined) rest = rest.slice(0, Number(length));
      resolve({
        status: Number(/^HTTP\/1\.1 (\d{3})/.exec(statusLine)?.[1] ?? 0),
        headers,
        body: Buffer.from(rest, 'latin1').toString('utf8'),
        end,
      });
    };
    const timer = setTimeout(() => finish('timeout'), timeoutMs);
    socket.on('data', (c: Buffer) => {
      chunks.push(c);
      // a complete response (headers and its Content-Length of body) is enough
      const text = finalResponse(Buffer.concat(chunks).toString('latin1'));
      const sep = text.indexOf('\r\n\r\n');
      if (sep < 0) return;
      const headText = text.slice(0, sep);
      const length = /\r\ncontent-length: *(\d+)/i.exec(headText)?.[1];
      // no body follows a HEAD answer; an event stream never ends: its headers are the answer
      if (head.startsWith('HEAD ') || /\r\ncontent-type: *text\/event-stream/i.test(headText))
        finish('closed');
      else if (length !== undefined && Buffer.byteLength(text.slice(sep + 4), 'latin1') >= Number(length))
        finish('closed');
    });
    socket.on('error', () => finish('reset'));
    socket.on('close', () => finish('closed'));
    socket.on('connect', () => {
      socket.write(head);
      const data = typeof body === 'string' ? Buffer.from(body) : body;
      const step = 64 * 1024;
      let at = 0;
      if (readAfterSending) socket.pause();
      const pump = () => {
        while (at < data.length && !done) {
          const chunk = data.subarray(at, at + step);
          at += chunk.length;
          if (!socket.write(chunk)) return void socket.once('drain', pump);
        }
        if (readAfterSending) socket.resume();
      };
      pump();
    });
  });
}
