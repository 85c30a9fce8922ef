import { COPILOT_CONTEXT_WINDOW, COPILOT_MODELS } from './copilot-models';
import type { ProvidersConfig } from './providers-config';

/**
 * How many input tokens a model takes. Claude's current models take 200k tokens (1M only behind a beta
 * header Zero does not send). Other models are looked up in a table of common open and OpenAI models by
 * their name as the endpoint knows it (`qwen3:8b`, `meta-llama/Llama-3.1-8B-Instruct`), matched on the
 * longest prefix with case, `-`, `_` and an `org/` part ignored. The windows are the model's own (as
 * Ollama, vLLM or the vendor serve it by default); a server started with a smaller one (Ollama's
 * `num_ctx`) must be configured with its endpoint. GitHub Copilot's models take what its table says
 * (128k), whether named `copilot:gpt-5-mini` or `gpt-5-mini`.
 */
const OPEN_MODELS: [prefix: string, tokens: number][] = [
  ['llama2', 4_096],
  ['llama3', 8_192],
  ['llama3.1', 131_072],
  ['llama3.2', 131_072],
  ['llama3.3', 131_072],
  ['llama4', 131_072],
  ['codellama', 16_384],
  ['qwen2.5', 32_768],
  ['qwen3', 40_960],
  ['qwq', 40_960],
  ['mistral', 32_768],
  ['mistralnemo', 131_072],
  ['mixtral', 32_768],
  ['gemma2', 8_192],
  ['gemma3', 131_072],
  ['gemma3:1b', 32_768],
  ['phi3', 4_096],
  ['phi4', 16_384],
  ['deepseekr1', 131_072],
  ['deepseekv3', 131_072],
  ['deepseekcoderv2', 163_840],
  ['gptoss', 131_072],
  ['gpt4o', 128_000],
  ['gpt4.1', 1_047_576],
  ['gpt3.5turbo', 16_385],
  ['o3', 200_000],
  ['o4mini', 200_000],
];

/** A Claude model's window. */
export const CLAUDE_CONTEXT_WINDOW = 200_000;
/** A model neither configured nor in the table: small enough that compaction starts before most open models overflow. */
export const UNKNOWN_MODEL_CONTEXT_WINDOW = 32_768;

const byLongestPrefix = [...OPEN_MODELS].sort((a, b) => b[0].length - a[0].length);
const normalised = (name: string) => name.slice(name.lastIndexOf('/') + 1).toLowerCase().replace(/[-_\s]/g, '');

/** The table's window for a model name, or undefined. */
export function knownContextWindow(model: string): number | undefined {
  const name = normalised(model);
  return byLongestPrefix.find(([prefix]) => name.startsWith(prefix))?.[1];
}

export interface ContextWindowSources {
  /** `ZERO_CONTEXT_WINDOW`: one size for every model its endpoint's configuration does not name (0: none). */
  override?: number;
  /** The deployment's providers: each OpenAI-compatible endpoint's `contextWindows`, and the provider of a model named without one. */
  providers?: Pick<ProvidersConfig, 'default' | 'endpoints'>;
}

/**
 * The window of `model` (as an agent names it: `ollama:qwen3:8b`, `qwen3:8b` on an endpoint that is the
 * default provider, `claude-sonnet-4-6`): its endpoint's configured window for it (or for every model of
 * the endpoint, `*`), else `ZERO_CONTEXT_WINDOW`, else Claude's, else the table's, else a cautious default.
 */
export function contextWindowOf(model: string, sources: ContextWindowSources = {}): number {
  const { endpoints = {}, default: defaultProvider } = sources.providers ?? {};
  const at = model.indexOf(':');
  const prefix = at > 0 ? model.slice(0, at) : '';
  const [endpoint, bare] = endpoints[prefix] ? [endpoints[prefix], model.slice(at + 1)] : [/claude/i.test(model) ? undefined : endpoints[defaultProvider ?? ''], model];
  const configured = endpoint?.contextWindows?.[bare] ?? endpoint?.contextWindows?.['*'];
  if (configured) return configured;
  if (sources.override && sources.override > 0) return sources.override;
  const copilot = COPILOT_MODELS[bare]?.contextWindow ?? (prefix === 'copilot' ? COPILOT_CONTEXT_WINDOW : undefined);
  if (copilot) return copilot;
  if (/claude/i.test(bare)) return CLAUDE_CONTEXT_WINDOW;
  return knownContextWindow(bare) ?? UNKNOWN_MODEL_CONTEXT_WINDOW;
}
