/**
 * The project's own model server: OpenAI chat-completions wire format (streaming SSE and not,
 * with tool calls) plus GET /v1/models, answering from a script. Binds 127.0.0.1.
 * Every request is logged (messages, tools offered, stream flag) so tests can assert what the
 * model saw. The API key is never logged: only whether an Authorization header was present.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { readBody, sendJson } from './http.js';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  stepMatches,
  type ChatRequestBody,
  type Script,
  type ScriptReply,
  type ScriptStep,
} from './script.js';

export interface LoggedRequest {
  seq: number;
  at: string;
  model: string | null;
  stream: boolean;
  messages: ChatRequestBody['messages'];
  /** Function names offered to the model, in order. */
  toolNames: string[];
  tools: NonNullable<ChatRequestBody['tools']>;
  matchedStep: string | null; // step name (or index) that answered; null = no step matched
  hadAuthorization: boolean;
  /** The client went away before the reply finished (e.g. an aborted stream). */
  clientClosedEarly: boolean;
}

export interface ScriptedModel {
  url: string; // base URL for the SDK, ending in /v1
  port: number;
  requests(): LoggedRequest[];
  /** Requests that no step matched (they were answered with a fallback text). */
  unmatched(): LoggedRequest[];
  setScript(script: Script): void;
  /** Steps not yet used (repeat steps excluded). */
  remainingSteps(): ScriptStep[];
  close(): Promise<void>;
}

export interface StartScriptedModelOptions {
  script?: Script;
  port?: number;
  host?: string;
  modelId?: string;
}

export const NO_STEP_TEXT = '[scripted-model] no script step matched this request';

export async function startScriptedModel(opts: StartScriptedModelOptions = {}): Promise<ScriptedModel> {
  let steps: { step: ScriptStep; used: boolean; label: string }[] = [];
  const setScript = (script: Script) => {
    steps = script.map((step, i) => ({ step, used: false, label: step.name ?? `step#${i}` }));
  };
  setScript(opts.script ?? []);
  const log: LoggedRequest[] = [];
  const modelId = opts.modelId ?? 'scripted-model';
  let completionCounter = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) sendJson(res, 500, { error: { message: String(err), type: 'server_error' } });
      else res.end();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    if (req.method === 'GET' && path === '/v1/models') {
      sendJson(res, 200, {
        object: 'list',
        data: [{ id: modelId, object: 'model', created: 0, owned_by: 'bailing-desk' }],
      });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
      return;
    }
    let raw: string;
    try {
      raw = await readBody(req);
    } catch {
      sendJson(res, 413, { error: { message: 'body too large', type: 'invalid_request_error' } });
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(raw) as ChatRequestBody;
      if (!body || !Array.isArray(body.messages)) throw new Error('messages missing');
    } catch (err) {
      sendJson(res, 400, {
        error: { message: `invalid request: ${String(err)}`, type: 'invalid_request_error' },
      });
      return;
    }
    const entry = steps.find((s) => !s.used && stepMatches(s.step, body));
    if (entry && !entry.step.repeat) entry.used = true;
    const logged: LoggedRequest = {
      seq: log.length + 1,
      at: new Date().toISOString(),
      model: typeof body.model === 'string' ? body.model : null,
      stream: body.stream === true,
      messages: structuredClone(body.messages),
      toolNames: (body.tools ?? []).map((t) => t.function?.name ?? ''),
      tools: structuredClone(body.tools ?? []),
      matchedStep: entry?.label ?? null,
      hadAuthorization: typeof req.headers.authorization === 'string' && req.headers.authorization.length > 0,
      clientClosedEarly: false,
    };
    log.push(logged);
    res.on('close', () => {
      if (!res.writableFinished) logged.clientClosedEarly = true;
    });
    const reply: ScriptReply = entry?.step.reply ?? { text: NO_STEP_TEXT };
    if (reply.delayMs) await sleep(reply.delayMs);
    if (reply.httpError) {
      sendJson(res, reply.httpError.status, {
        error: { message: reply.httpError.message, type: 'server_error' },
      });
      return;
    }
    const toolCalls = (reply.toolCalls ?? []).map((tc, i) => {
      const args = tc.argumentsFrom ? tc.argumentsFrom(body) : (tc.arguments ?? {});
      return {
        id: tc.id ?? `call_${completionCounter + 1}_${i}`,
        name: tc.name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args),
      };
    });
    completionCounter += 1;
    const id = `chatcmpl-${completionCounter}`;
    const created = Math.floor(Date.now() / 1000);
    const finish = toolCalls.length > 0 ? 'tool_calls' : 'stop';
    if (!body.stream) {
      sendJson(res, 200, {
        id,
        object: 'chat.completion',
        created,
        model: logged.model ?? modelId,
        choices: [
          {
            index: 0,
            message: {
              role: 'assistant',
              content: reply.text ?? (toolCalls.length ? null : ''),
              refusal: null,
              ...(toolCalls.length
                ? {
                    tool_calls: toolCalls.map((tc) => ({
                      id: tc.id,
                      type: 'function',
                      function: { name: tc.name, arguments: tc.arguments },
                    })),
                  }
                : {}),
            },
            finish_reason: finish,
            logprobs: null,
          },
        ],
        usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
      });
      return;
    }
    res.writeHead(200, {
      'content-type': 'text/event-stream',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
    });
    const chunk = (delta: Record<string, unknown>, finishReason: string | null) =>
      `data: ${JSON.stringify({
        id,
        object: 'chat.completion.chunk',
        created,
        model: logged.model ?? modelId,
        choices: [{ index: 0, delta, finish_reason: finishReason, logprobs: null }],
      })}\n\n`;
    const write = async (text: string) => {
      if (res.destroyed) return;
      res.write(text);
      if (reply.chunkDelayMs) await sleep(reply.chunkDelayMs);
    };
    await write(chunk({ role: 'assistant', content: '' }, null));
    const pieces = splitText(reply.text ?? '');
    for (const [i, piece] of pieces.entries()) {
      await write(chunk({ content: piece }, null));
      if (i === 0 && reply.stallAfterFirstChunkMs) await sleep(reply.stallAfterFirstChunkMs);
      if (res.destroyed) return;
    }
    for (const [index, tc] of toolCalls.entries()) {
      await write(
        chunk(
          {
            tool_calls: [{ index, id: tc.id, type: 'function', function: { name: tc.name, arguments: '' } }],
          },
          null,
        ),
      );
      for (const piece of splitText(tc.arguments)) {
        await write(chunk({ tool_calls: [{ index, function: { arguments: piece } }] }, null));
      }
    }
    await write(chunk({}, finish));
    if (!res.destroyed) res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port ?? 0, opts.host ?? '127.0.0.1', () => resolve());
  });
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    port,
    requests: () => log.slice(),
    unmatched: () => log.filter((r) => r.matchedStep === null),
    setScript,
    remainingSteps: () => steps.filter((s) => !s.used && !s.step.repeat).map((s) => s.step),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Split into chunks of up to 12 characters so streaming is really incremental. */
function splitText(text: string): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += 12) out.push(text.slice(i, i + 12));
  return out;
}
