/**
 * The emulator's strict modes, each reproducing one documented provider rule or one way real
 * servers shape their answers. Modes combine: their rules, wire quirks and armed faults add up.
 * Every mode also keeps the base rules (tool-call ids at most 40 characters, ids exactly as issued,
 * every call answered by its tool message, function descriptions at most 1,024 characters, a model
 * the provider serves).
 */
import type { StepMatch } from '../scripted-model/script.js';
import type { RequestRule } from './types.js';
import type { WireChunk } from './wire/chunks.js';
import type { EmulatorReply } from './types.js';
import { reasoningPassedBack } from './rules/reasoning-passed-back.js';
import { thinkingNeedsStream } from './rules/thinking-needs-stream.js';
import { streamingUnsupported } from './rules/streaming-unsupported.js';
import { namesRepeated } from './wire/names-repeated.js';
import { finishStop } from './wire/finish-stop.js';
import { interleaved } from './wire/interleaved.js';
import { emptyChoices } from './wire/empty-choices.js';
import { idsMissing } from './wire/ids-missing.js';

export type WireQuirk = (chunks: WireChunk[], reply: EmulatorReply) => WireChunk[];

/**
 * A fault armed when the mode is set (or by `failNext`): it answers the next completion request(s),
 * or with `match` only the next ones the script matcher accepts (e.g. `afterToolResultFor`: the
 * request that follows a given tool's result).
 */
export type ArmedFault = (
  | { kind: 'rate_limit'; times: number; retryAfterSeconds?: number; retryAfterMs?: number }
  | { kind: 'server_unavailable'; times: number; status: 500 | 502 | 503 | 504 }
  | { kind: 'interrupt_stream'; afterChars: number }
  /**
   * The stream goes silent after `afterChars` characters of text (0: right after the headers), the
   * connection left open; a whole completion stops halfway through its JSON.
   */
  | { kind: 'stall_stream'; afterChars: number }
) & { match?: StepMatch };

export interface ModeSpec {
  description: string;
  rules?: RequestRule[];
  wire?: WireQuirk[];
  arm?: ArmedFault[];
  /** Reasoning the model streams, in which field, and when. */
  thinking?: { field: 'reasoning_content' | 'reasoning'; on: 'always' | 'unless_disabled' };
  /** The server gives no tool-call ids (the issued-id rule cannot apply). */
  noCallIds?: boolean;
  /** `finish_reason: "stop"` also for a reply with tool calls (non-streaming too). */
  finishStop?: boolean;
}

export const PROVIDER_MODES = {
  'openai-strict': {
    description: 'OpenAI: ids at most 40 characters and answered in order; usage-only last chunk.',
  },
  'deepseek-thinking': {
    description:
      'DeepSeek thinking mode: reasoning_content streamed; must be passed back in tool-call turns.',
    rules: [reasoningPassedBack],
    thinking: { field: 'reasoning_content', on: 'always' },
  },
  'qwen-thinking': {
    description:
      'Qwen (DashScope): thinking on by default, streams only; non-streaming needs enable_thinking false.',
    rules: [thinkingNeedsStream],
    thinking: { field: 'reasoning_content', on: 'unless_disabled' },
  },
  'retry-after': {
    description: 'The first completion request gets 429 with retry-after: 2, then success.',
    arm: [{ kind: 'rate_limit', times: 1, retryAfterSeconds: 2 }],
  },
  'names-repeated': {
    description:
      'Tool-call id and function name repeated in every chunk; finish_reason stop with tool calls.',
    wire: [namesRepeated, finishStop],
    finishStop: true,
  },
  'parallel-interleaved': {
    description: 'Parallel tool calls interleaved by index, arguments cut unevenly, empty-choices chunks.',
    wire: [interleaved, emptyChoices],
  },
  'error-mid-stream': {
    description: 'The first reply with text breaks after a few characters with an error event.',
    arm: [{ kind: 'interrupt_stream', afterChars: 14 }],
  },
  'non-streaming': {
    description: 'Whole completions only: stream: true is refused.',
    rules: [streamingUnsupported],
  },
  'ids-missing': {
    description: 'No tool-call ids at all (the client makes its own short ones).',
    wire: [idsMissing],
    noCallIds: true,
  },
} satisfies Record<string, ModeSpec>;

export type ProviderMode = keyof typeof PROVIDER_MODES;
export const PROVIDER_MODE_NAMES = Object.keys(PROVIDER_MODES) as ProviderMode[];
