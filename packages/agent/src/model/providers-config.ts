/**
 * Which model providers a deployment has, read from its environment:
 *
 * - `ZERO_MODEL_PROVIDER`: the provider of models named without one (`anthropic` by default, `bedrock`, or an endpoint's name);
 * - `ZERO_PROVIDER_<NAME>_URL` (`_KEY`, `_NO_TOOLS`, `_PRICES`, `_CONTEXT_WINDOW`): an OpenAI-compatible endpoint named `<name>` (lowercase);
 * - `ZERO_BEDROCK_REGION` (`ZERO_BEDROCK_URL`, `ZERO_BEDROCK_MODELS`): Claude on Amazon Bedrock;
 * - `ZERO_COPILOT_GITHUB_TOKEN` (`ZERO_COPILOT_URL`, `ZERO_COPILOT_TOKEN_URL`, `ZERO_COPILOT_PRICES`): GitHub Copilot;
 * - `ZERO_MODEL_FALLBACK`: the models (or providers) a step is redone on when its model's provider is unavailable.
 */
export interface ProvidersConfig {
  /** The provider of a model named without one; Claude models go to the default Claude provider (see `route`). */
  default?: string;
  /** OpenAI-compatible endpoints by name (lowercase). */
  endpoints?: Record<string, OpenAIEndpointConfig>;
  bedrock?: BedrockConfig;
  /** GitHub Copilot, as the provider `copilot`. */
  copilot?: CopilotConfig;
  /** The deployment's fallback chain: models (`bedrock:claude-sonnet-4-6`, `sonnet`) or provider names (the same model there). */
  fallback?: string[];
}

export interface OpenAIEndpointConfig {
  /** The API's base URL, the part before `/chat/completions` (e.g. `http://localhost:11434/v1`). */
  url: string;
  key?: string;
  /** Models this endpoint serves without tool calling: an agent's tools reach them through the text protocol (`<tool_call>` blocks, see text-tool-protocol.ts). */
  noTools?: string[];
  /** USD per million tokens by model; a model not listed is priced as unknown (cost 0, `cost_known: false`). */
  prices?: Record<string, TokenPrice>;
  /** Retries of 429/5xx and connection failures before the call fails (default 2). */
  maxRetries?: number;
  /** Input tokens each model takes, by model, `*` for the endpoint's others (see model/context-windows.ts for the rest). */
  contextWindows?: Record<string, number>;
}

export interface BedrockConfig {
  region?: string;
  /** An endpoint override (a VPC endpoint, or a fake in tests). */
  baseURL?: string;
  /** Bedrock model ids by Claude model id, beside the built-in table. */
  models?: Record<string, string>;
  /** Static credentials (tests, a machine without a role); absent: the AWS SDK's chain (the function role). */
  credentials?: { accessKeyId: string; secretAccessKey: string; sessionToken?: string };
}

export interface CopilotConfig {
  /** A GitHub token with Copilot access, exchanged for short-lived Copilot tokens; a secret. */
  githubToken: string;
  /** Copilot's API base URL (default `https://api.githubcopilot.com`). */
  url?: string;
  /** The token exchange (default `https://api.github.com/copilot_internal/v2/token`). */
  tokenUrl?: string;
  prices?: Record<string, TokenPrice>;
  maxRetries?: number;
}

/** USD per million tokens. */
export interface TokenPrice {
  input: number;
  output: number;
  /** Cached input tokens read; the input price when absent. */
  cachedInput?: number;
}

/** A provider's name: lowercase letters, digits, `_` and `-`. */
export const PROVIDER_NAME = /^[a-z][a-z0-9_-]*$/;

const ENDPOINT_URL = /^ZERO_PROVIDER_([A-Z0-9_]+)_URL$/;

export function providersConfigFromEnv(env: Record<string, string | undefined>): ProvidersConfig {
  const endpoints: Record<string, OpenAIEndpointConfig> = {};
  for (const [variable, url] of Object.entries(env)) {
    const match = ENDPOINT_URL.exec(variable);
    if (!match || !url) continue;
    const upper = match[1]!;
    const name = upper.toLowerCase();
    if (name === 'anthropic' || name === 'bedrock' || name === 'copilot') throw new Error(`${variable}: "${name}" is a built-in provider; name the endpoint otherwise`);
    endpoints[name] = {
      url: validUrl(variable, url),
      key: env[`ZERO_PROVIDER_${upper}_KEY`] || undefined,
      noTools: list(env[`ZERO_PROVIDER_${upper}_NO_TOOLS`]),
      prices: parsePrices(`ZERO_PROVIDER_${upper}_PRICES`, env[`ZERO_PROVIDER_${upper}_PRICES`]),
      contextWindows: parseContextWindows(`ZERO_PROVIDER_${upper}_CONTEXT_WINDOW`, env[`ZERO_PROVIDER_${upper}_CONTEXT_WINDOW`]),
    };
  }
  const copilot = copilotFromEnv(env);
  const region = env.ZERO_BEDROCK_REGION || undefined;
  const bedrockUrl = env.ZERO_BEDROCK_URL || undefined;
  const defaultProvider = env.ZERO_MODEL_PROVIDER?.trim().toLowerCase() || undefined;
  const config: ProvidersConfig = {
    ...(defaultProvider ? { default: defaultProvider } : {}),
    endpoints,
    ...(region || bedrockUrl || defaultProvider === 'bedrock'
      ? { bedrock: { region, baseURL: bedrockUrl ? validUrl('ZERO_BEDROCK_URL', bedrockUrl) : undefined, models: parseMap('ZERO_BEDROCK_MODELS', env.ZERO_BEDROCK_MODELS) } }
      : {}),
    ...(copilot ? { copilot } : {}),
    fallback: list(env.ZERO_MODEL_FALLBACK),
  };
  const known = ['anthropic', 'bedrock', ...(copilot ? ['copilot'] : []), ...Object.keys(endpoints)];
  if (defaultProvider && !known.includes(defaultProvider)) {
    const needs = defaultProvider === 'copilot' ? 'ZERO_COPILOT_GITHUB_TOKEN' : `ZERO_PROVIDER_${defaultProvider.toUpperCase()}_URL`;
    throw new Error(`ZERO_MODEL_PROVIDER is "${defaultProvider}", which is not configured (set ${needs}); known providers: ${known.join(', ')}`);
  }
  // With a Claude default, `name:` before a model can only be a provider (see ProviderRouter.route).
  if (!defaultProvider || defaultProvider === 'anthropic' || defaultProvider === 'bedrock') {
    for (const entry of config.fallback ?? []) {
      const prefix = entry.slice(0, Math.max(0, entry.indexOf(':')));
      if (prefix && PROVIDER_NAME.test(prefix) && !known.includes(prefix)) {
        throw new Error(`ZERO_MODEL_FALLBACK: "${entry}" names provider "${prefix}", which is not configured; known providers: ${known.join(', ')}`);
      }
    }
  }
  return config;
}

function copilotFromEnv(env: Record<string, string | undefined>): CopilotConfig | undefined {
  const githubToken = env.ZERO_COPILOT_GITHUB_TOKEN?.trim();
  if (!githubToken) {
    const stray = ['ZERO_COPILOT_URL', 'ZERO_COPILOT_TOKEN_URL', 'ZERO_COPILOT_PRICES'].find((v) => env[v]);
    if (stray) throw new Error(`${stray} is set but ZERO_COPILOT_GITHUB_TOKEN is not: Copilot needs a GitHub token with Copilot access`);
    return undefined;
  }
  return {
    githubToken,
    ...(env.ZERO_COPILOT_URL ? { url: validUrl('ZERO_COPILOT_URL', env.ZERO_COPILOT_URL) } : {}),
    ...(env.ZERO_COPILOT_TOKEN_URL ? { tokenUrl: validUrl('ZERO_COPILOT_TOKEN_URL', env.ZERO_COPILOT_TOKEN_URL) } : {}),
    prices: parsePrices('ZERO_COPILOT_PRICES', env.ZERO_COPILOT_PRICES),
  };
}

function list(raw: string | undefined): string[] {
  return (raw ?? '').split(',').map((s) => s.trim()).filter(Boolean);
}

function validUrl(variable: string, raw: string): string {
  try {
    const url = new URL(raw);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http');
    return raw.replace(/\/+$/, '');
  } catch {
    throw new Error(`${variable} must be an http(s) URL, got "${raw}"`);
  }
}

/** `model=value,model2=value2`. */
function parseMap(variable: string, raw: string | undefined): Record<string, string> {
  const map: Record<string, string> = {};
  for (const entry of list(raw)) {
    const at = entry.indexOf('=');
    if (at <= 0) throw new Error(`${variable}: "${entry}" is not model=value`);
    map[entry.slice(0, at).trim()] = entry.slice(at + 1).trim();
  }
  return map;
}

/** `model=input/output[/cached],…` in USD per million tokens, e.g. `qwen3=0.2/0.6,llama3.3=0`. */
export function parsePrices(variable: string, raw: string | undefined): Record<string, TokenPrice> {
  const prices: Record<string, TokenPrice> = {};
  for (const [model, value] of Object.entries(parseMap(variable, raw))) {
    const parts = value.split('/').map((p) => Number(p));
    if (parts.length > 3 || parts.some((n) => !Number.isFinite(n) || n < 0)) {
      throw new Error(`${variable}: the price of "${model}" must be input/output[/cached] in USD per million tokens, got "${value}"`);
    }
    const [input = 0, output = input, cachedInput] = parts;
    prices[model] = { input: input!, output: output!, ...(cachedInput !== undefined ? { cachedInput } : {}) };
  }
  return prices;
}

/** `8192` (every model of the endpoint) or `model=tokens,…` with `*=tokens` for the others, e.g. `qwen3:8b=40960,*=8192`. */
export function parseContextWindows(variable: string, raw: string | undefined): Record<string, number> {
  const text = (raw ?? '').trim();
  const entries = /^\d+$/.test(text) ? { '*': text } : parseMap(variable, text);
  const windows: Record<string, number> = {};
  for (const [model, value] of Object.entries(entries)) {
    const tokens = Number(value);
    if (!/^\d+$/.test(value) || tokens < 1_024 || tokens > 10_000_000) {
      throw new Error(`${variable}: the window of "${model}" must be a whole number of tokens from 1024 to 10000000, got "${value}"`);
    }
    windows[model] = tokens;
  }
  return windows;
}
