/**
 * The provider emulator: an OpenAI-compatible chat-completions server on 127.0.0.1 that answers
 * from a script (the scripted model's steps) and enforces, in strict modes, the rules real
 * providers document (./modes.ts): tool-call ids at most 40 characters and exactly as issued,
 * DeepSeek's reasoning passed back in tool-call turns, Qwen's thinking only when streaming, 429
 * with retry-after, and the ways real servers shape their streams (names repeated per chunk,
 * parallel calls interleaved by index, an error event mid-stream, whole completions only), and a
 * stream that goes silent with its connection left open (an armed `stall_stream` fault).
 *
 * `POST /v1/chat/completions` (SSE or one JSON completion), `GET /v1/models`. Every completion
 * request is logged with what the model was offered and how it was answered; the API key is never
 * logged, only whether a key came and whether it was the expected one.
 */
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  lastUserText,
  messageText,
  stepMatches,
  type Script,
  type ScriptStep,
} from '../scripted-model/script.js';
import type { LoggedRequest } from '../scripted-model/server.js';
import { readBody, sendJson } from '../scripted-model/http.js';
import { keySeen, unauthorized, type KeySeen } from './faults/auth.js';
import { rateLimited } from './faults/rate-limit.js';
import { serverUnavailable } from './faults/server-unavailable.js';
import { PROVIDER_MODES, type ArmedFault, type ModeSpec, type ProviderMode } from './modes.js';
import { modelKnown } from './rules/model-known.js';
import { toolCallIdIssued } from './rules/tool-call-id-issued.js';
import { toolCallIdLength } from './rules/tool-call-id-length.js';
import { toolCallPairing } from './rules/tool-call-pairing.js';
import { toolDescriptionLength } from './rules/tool-description-length.js';
import type {
  ChatRequestBody,
  EmulatorMemory,
  EmulatorReply,
  IssuedCall,
  ProviderRefusal,
  RequestRule,
} from './types.js';
import { replyChunks } from './wire/chunks.js';
import { errorMidStream, textUpTo } from './wire/error-mid-stream.js';
import { jsonCompletion } from './wire/json-completion.js';
import { writeSse } from './wire/sse.js';

export interface EmulatorLoggedRequest extends LoggedRequest {
  status: number;
  /** The rule or fault that refused the request (null when it was answered). */
  refusedBy: string | null;
  /** Whether an API key came, and whether it was the expected one. */
  key: KeySeen;
  /** Request fields other than messages and tools (stream_options, enable_thinking, max_tokens, …). */
  params: Record<string, unknown>;
}

export interface ProviderEmulator {
  url: string;
  port: number;
  /** Chat-completion requests, in order (answered or refused). */
  requests(): EmulatorLoggedRequest[];
  unmatched(): EmulatorLoggedRequest[];
  /** Requests a rule or fault refused. */
  refusals(): EmulatorLoggedRequest[];
  /** `GET /models` calls (with whether a key came). */
  listings(): { at: string; key: KeySeen; status: number }[];
  setScript(script: Script): void;
  remainingSteps(): ScriptStep[];
  setModes(modes: readonly ProviderMode[]): void;
  /** Arms a fault for the next completion request(s). */
  failNext(fault: ArmedFault): void;
  /** Tool calls the emulator issued (ids, names, reasoning). */
  issuedCalls(): IssuedCall[];
  close(): Promise<void>;
}

export interface ProviderEmulatorOptions {
  script?: Script;
  modes?: readonly ProviderMode[];
  /** The key requests must carry (`Authorization: Bearer …`); null accepts requests with or without one. */
  apiKey?: string | null;
  /** Models the provider serves (GET /models and the model-known rule). */
  models?: string[];
  port?: number;
  host?: string;
  /** Wait between streamed chunks. */
  chunkDelayMs?: number;
}

export const DEFAULT_EMULATED_MODEL = 'emulated-model';

export async function startProviderEmulator(opts: ProviderEmulatorOptions = {}): Promise<ProviderEmulator> {
  let steps: { step: ScriptStep; used: boolean; label: string }[] = [];
  const setScript = (script: Script) => {
    steps = script.map((step, i) => ({ step, used: false, label: step.name ?? `step#${i}` }));
  };
  setScript(opts.script ?? []);
  const models = opts.models ?? [DEFAULT_EMULATED_MODEL];
  const memory: EmulatorMemory = { calls: new Map() };
  const log: EmulatorLoggedRequest[] = [];
  const listings: { at: string; key: KeySeen; status: number }[] = [];
  let armed: ArmedFault[] = [];
  let modes: ModeSpec[] = [];
  let rules: RequestRule[] = [];
  const setModes = (names: readonly ProviderMode[]) => {
    modes = names.map((n) => PROVIDER_MODES[n] as ModeSpec);
    const base = [toolCallIdLength, toolCallPairing, toolDescriptionLength, modelKnown(models)];
    if (!modes.some((m) => m.noCallIds)) base.push(toolCallIdIssued);
    rules = [...base, ...modes.flatMap((m) => m.rules ?? [])];
    armed = modes.flatMap((m) => (m.arm ?? []).map((f) => ({ ...f })));
  };
  setModes(opts.modes ?? ['openai-strict']);
  let counter = 0;

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent)
        sendError(res, { ...serverUnavailable(500), message: String(err), rule: 'crash' });
      else res.destroy();
    });
  });

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '').split('?')[0];
    const key = keySeen(req.headers, opts.apiKey ?? null);
    const keyRefused = opts.apiKey ? key !== 'expected' : false;
    if (req.method === 'GET' && path === '/v1/models') {
      if (keyRefused) {
        listings.push({ at: new Date().toISOString(), key, status: 401 });
        sendError(res, unauthorized(key));
        return;
      }
      listings.push({ at: new Date().toISOString(), key, status: 200 });
      sendJson(res, 200, {
        object: 'list',
        data: models.map((id) => ({ id, object: 'model', created: 0, owned_by: 'provider-emulator' })),
      });
      return;
    }
    if (req.method !== 'POST' || path !== '/v1/chat/completions') {
      sendJson(res, 404, {
        error: { message: 'Not found', type: 'invalid_request_error', param: null, code: null },
      });
      return;
    }
    let body: ChatRequestBody;
    try {
      body = JSON.parse(await readBody(req)) as ChatRequestBody;
      if (!body || !Array.isArray(body.messages)) throw new Error("'messages' is a required property");
    } catch (err) {
      sendJson(res, 400, {
        error: {
          message: `Invalid request: ${String(err)}`,
          type: 'invalid_request_error',
          param: null,
          code: null,
        },
      });
      return;
    }
    const { messages, tools, ...params } = body;
    const logged: EmulatorLoggedRequest = {
      seq: log.length + 1,
      at: new Date().toISOString(),
      model: typeof body.model === 'string' ? body.model : null,
      stream: body.stream === true,
      messages: structuredClone(messages),
      toolNames: (tools ?? []).map((t) => t.function?.name ?? ''),
      tools: structuredClone(tools ?? []),
      matchedStep: null,
      hadAuthorization: key !== 'none',
      clientClosedEarly: false,
      status: 200,
      refusedBy: null,
      key,
      params: structuredClone(params),
    };
    log.push(logged);
    res.on('close', () => {
      if (!res.writableFinished) logged.clientClosedEarly = true;
    });
    const refuse = (r: ProviderRefusal) => {
      logged.status = r.status;
      logged.refusedBy = r.rule;
      sendError(res, r);
    };
    if (keyRefused) return refuse(unauthorized(key));
    const fault = takeFault(['rate_limit', 'server_unavailable'], body);
    if (fault?.kind === 'rate_limit') return refuse(rateLimited(fault));
    if (fault?.kind === 'server_unavailable') return refuse(serverUnavailable(fault.status));
    for (const rule of rules) {
      const r = rule.check(body, memory);
      if (r) return refuse(r);
    }

    const entry = steps.find((s) => !s.used && stepMatches(s.step, body));
    if (entry && !entry.step.repeat) entry.used = true;
    logged.matchedStep = entry?.label ?? null;
    const scripted = entry?.step.reply ?? { text: '[provider-emulator] no script step matched this request' };
    if (scripted.delayMs) await sleep(scripted.delayMs);
    if (scripted.httpError) {
      return refuse({
        status: scripted.httpError.status,
        rule: 'script',
        message: scripted.httpError.message,
        type: scripted.httpError.status >= 500 ? 'server_error' : 'invalid_request_error',
        code: null,
        param: null,
      });
    }
    const reply = buildReply(body, scripted);
    counter += 1;
    const meta = {
      id: `chatcmpl-emu-${counter}`,
      created: Math.floor(Date.now() / 1000),
      model: logged.model ?? models[0] ?? '',
    };
    const thinking = modes.find((m) => m.thinking)?.thinking;
    const reasoningField = thinking?.field ?? 'reasoning_content';
    if (!body.stream) {
      const completion = jsonCompletion(reply, {
        ...meta,
        reasoningField,
        finishStop: modes.some((m) => m.finishStop),
        omitIds: modes.some((m) => m.noCallIds),
      });
      if (takeStall(reply, body)) {
        // the headers and half the completion, then silence with the connection open
        const text = JSON.stringify(completion);
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
        res.write(text.slice(0, Math.floor(text.length / 2)));
        if (entry && !entry.step.repeat) entry.used = false;
        return;
      }
      remember(reply);
      sendJson(res, 200, completion);
      return;
    }
    const streamOptions = body.stream_options as { include_usage?: unknown } | undefined;
    let chunks = replyChunks(reply, { includeUsage: streamOptions?.include_usage === true, reasoningField });
    for (const quirk of modes.flatMap((m) => m.wire ?? [])) chunks = quirk(chunks, reply);
    const interrupt = reply.text.length > 0 ? takeFault(['interrupt_stream'], body) : null;
    const stall = interrupt ? null : takeStall(reply, body);
    if (interrupt?.kind === 'interrupt_stream') chunks = errorMidStream(chunks, interrupt.afterChars);
    else if (stall) {
      chunks = textUpTo(chunks, stall.afterChars);
      // never delivered whole: its step answers the next matching request (a client's retry)
      if (entry && !entry.step.repeat) entry.used = false;
    } else remember(reply);
    const pause = () =>
      opts.chunkDelayMs || scripted.chunkDelayMs
        ? sleep(scripted.chunkDelayMs ?? opts.chunkDelayMs)
        : Promise.resolve();
    await writeSse(
      res,
      chunks,
      meta,
      async () => {
        await pause();
      },
      stall ? 'stall' : 'end',
    );
  }

  /**
   * An armed stall for this reply: one after some text needs a reply with that much text (a whole
   * completion stalls halfway through its JSON whatever `afterChars` says).
   */
  function takeStall(reply: EmulatorReply, body: ChatRequestBody): { afterChars: number } | null {
    const i = armed.findIndex(
      (f) =>
        f.kind === 'stall_stream' &&
        reply.text.length >= f.afterChars &&
        (!f.match || stepMatches({ match: f.match, reply: {} }, body)),
    );
    const f = armed[i];
    if (f?.kind !== 'stall_stream') return null;
    armed.splice(i, 1);
    return f;
  }

  function takeFault(kinds: ArmedFault['kind'][], body: ChatRequestBody): ArmedFault | null {
    const i = armed.findIndex(
      (f) => kinds.includes(f.kind) && (!f.match || stepMatches({ match: f.match, reply: {} }, body)),
    );
    if (i < 0) return null;
    const f = armed[i] as ArmedFault;
    if (f.kind === 'interrupt_stream' || f.kind === 'stall_stream' || f.times <= 1) armed.splice(i, 1);
    else armed[i] = { ...f, times: f.times - 1 };
    return f;
  }

  function buildReply(body: ChatRequestBody, scripted: NonNullable<ScriptStep['reply']>): EmulatorReply {
    const toolCalls = (scripted.toolCalls ?? []).map((tc) => {
      const args = tc.argumentsFrom ? tc.argumentsFrom(body) : (tc.arguments ?? {});
      return {
        id: tc.id ?? newCallId(),
        name: tc.name,
        arguments: typeof args === 'string' ? args : JSON.stringify(args),
      };
    });
    const thinking = modes.find((m) => m.thinking)?.thinking;
    const thinkingOn = thinking !== undefined && (thinking.on === 'always' || body.enable_thinking !== false);
    const reasoning = thinkingOn
      ? (scripted.reasoning ??
        defaultReasoning(
          body,
          toolCalls.map((c) => c.name),
        ))
      : null;
    const text = scripted.text ?? '';
    const completionChars =
      text.length +
      (reasoning?.length ?? 0) +
      toolCalls.reduce((n, c) => n + c.arguments.length + c.name.length, 0);
    const prompt =
      Math.ceil(JSON.stringify(body.messages).length / 4) +
      Math.ceil(JSON.stringify(body.tools ?? []).length / 4);
    const completion = Math.max(1, Math.ceil(completionChars / 4));
    return {
      text,
      reasoning,
      toolCalls,
      usage: {
        prompt_tokens: prompt,
        completion_tokens: completion,
        total_tokens: prompt + completion,
        reasoning_tokens: Math.ceil((reasoning?.length ?? 0) / 4),
      },
    };
  }

  function remember(reply: EmulatorReply) {
    for (const c of reply.toolCalls)
      memory.calls.set(c.id, { id: c.id, name: c.name, reasoning: reply.reasoning });
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
    unmatched: () => log.filter((r) => r.status === 200 && r.matchedStep === null),
    refusals: () => log.filter((r) => r.refusedBy !== null),
    listings: () => listings.slice(),
    setScript,
    remainingSteps: () => steps.filter((s) => !s.used && !s.step.repeat).map((s) => s.step),
    setModes,
    failNext(fault) {
      armed.push({ ...fault });
    },
    issuedCalls: () => [...memory.calls.values()],
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** An OpenAI-style call id: `call_` and 24 letters and digits (29 characters). */
function newCallId(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(24);
  let id = 'call_';
  for (const b of bytes) id += alphabet[b % alphabet.length];
  return id;
}

function defaultReasoning(body: ChatRequestBody, calls: string[]): string {
  const asked = (lastUserText(body.messages) ?? '').slice(0, 80);
  const last = body.messages[body.messages.length - 1];
  const seen = last?.role === 'tool' ? ` I have the result: ${messageText(last).slice(0, 40)}.` : '';
  const next = calls.length > 0 ? `I will call ${calls.join(' and ')}.` : 'I can answer now.';
  return `The operator asked: "${asked}".${seen} ${next}`;
}

function sendError(res: ServerResponse, r: ProviderRefusal): void {
  sendJson(
    res,
    r.status,
    { error: { message: r.message, type: r.type, param: r.param, code: r.code } },
    r.headers,
  );
}
