/**
 * Model provider presets: what each OpenAI-compatible provider needs beyond a base URL, as its own
 * documentation says. Settings (main) and the settings form (renderer) both read this table; the
 * runtime gets the resolved quirks with each request's settings. See docs/runtime.md, "Model providers".
 */

export const MODEL_PROVIDER_IDS = [
  'openai',
  'deepseek',
  'qwen',
  'openrouter',
  'ollama',
  'vllm',
  'custom',
] as const;
export type ModelProviderId = (typeof MODEL_PROVIDER_IDS)[number];

/** When the reasoning a model streamed is sent back with its assistant message. */
export const REASONING_SEND_BACK = ['never', 'tool_call_turns', 'always'] as const;
export type ReasoningSendBack = (typeof REASONING_SEND_BACK)[number];

export interface ProviderQuirks {
  /** Streamed chat completions (false: whole completions only). */
  stream: boolean;
  /** Ask for the usage-only last chunk (`stream_options.include_usage`). */
  streamUsage: boolean;
  /**
   * `tool_call_turns`: the reasoning of every assistant message between two user messages in which
   * the model called tools is sent back, in all later requests (DeepSeek's thinking mode answers
   * 400 otherwise); `never`: never sent; `always`: sent with every assistant message that has one.
   */
  reasoningSendBack: ReasoningSendBack;
  /** The field reasoning is sent back in when the archive does not say (the field it came in wins). */
  reasoningField: 'reasoning_content' | 'reasoning';
  /** Qwen (DashScope): thinking only streams, so a non-streaming request says `enable_thinking: false`. */
  thinkingNeedsStream: boolean;
  /** The parameter that caps a completion's tokens (OpenAI's newer models refuse `max_tokens`). */
  tokenLimitParam: 'max_tokens' | 'max_completion_tokens';
}

export interface ModelProviderPreset {
  id: ModelProviderId;
  /** Shown as is (a product name, not translated). */
  label: string;
  /** Filled into the form when the preset is chosen; null for Custom. */
  baseUrl: string | null;
  /** Does the provider need a key at all (local servers do not). */
  needsKey: boolean;
  quirks: ProviderQuirks;
}

const base: ProviderQuirks = {
  stream: true,
  streamUsage: true,
  reasoningSendBack: 'never',
  reasoningField: 'reasoning_content',
  thinkingNeedsStream: false,
  tokenLimitParam: 'max_tokens',
};

export const MODEL_PROVIDER_PRESETS: Readonly<Record<ModelProviderId, ModelProviderPreset>> = {
  openai: {
    id: 'openai',
    label: 'OpenAI',
    baseUrl: 'https://api.openai.com/v1',
    needsKey: true,
    quirks: { ...base, tokenLimitParam: 'max_completion_tokens' },
  },
  deepseek: {
    id: 'deepseek',
    label: 'DeepSeek',
    baseUrl: 'https://api.deepseek.com',
    needsKey: true,
    quirks: { ...base, reasoningSendBack: 'tool_call_turns' },
  },
  qwen: {
    id: 'qwen',
    label: 'Qwen (DashScope compatible mode)',
    baseUrl: 'https://dashscope.aliyuncs.com/compatible-mode/v1',
    needsKey: true,
    quirks: { ...base, reasoningSendBack: 'tool_call_turns', thinkingNeedsStream: true },
  },
  openrouter: {
    id: 'openrouter',
    label: 'OpenRouter',
    baseUrl: 'https://openrouter.ai/api/v1',
    needsKey: true,
    quirks: { ...base, reasoningSendBack: 'tool_call_turns', reasoningField: 'reasoning' },
  },
  ollama: {
    id: 'ollama',
    label: 'Ollama',
    baseUrl: 'http://127.0.0.1:11434/v1',
    needsKey: false,
    quirks: { ...base, reasoningField: 'reasoning' },
  },
  vllm: {
    id: 'vllm',
    label: 'vLLM / LM Studio',
    baseUrl: 'http://127.0.0.1:8000/v1',
    needsKey: false,
    quirks: { ...base },
  },
  custom: {
    id: 'custom',
    label: 'Custom',
    baseUrl: null,
    needsKey: false,
    // An unknown server: nothing it might refuse (no stream_options).
    quirks: { ...base, streamUsage: false },
  },
};

/** A preset's quirks with the operator's own choices on top (streaming, reasoning send-back). */
export function providerQuirks(
  provider: ModelProviderId,
  overrides: { stream?: boolean | null; reasoningSendBack?: ReasoningSendBack | null } = {},
): ProviderQuirks {
  const q = MODEL_PROVIDER_PRESETS[provider].quirks;
  return {
    ...q,
    ...(overrides.stream !== undefined && overrides.stream !== null ? { stream: overrides.stream } : {}),
    ...(overrides.reasoningSendBack ? { reasoningSendBack: overrides.reasoningSendBack } : {}),
  };
}

/** The origin (scheme, host, port) a key or token belongs to; null for a URL that does not parse. */
export function originOf(url: string | null | undefined): string | null {
  if (!url) return null;
  try {
    return new URL(url).origin;
  } catch {
    return null;
  }
}
