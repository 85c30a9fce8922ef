import { describe, expect, it } from 'vitest';
import { resolveModel } from './aliases';
import type { ModelProvider } from './provider';
import { providersConfigFromEnv } from './providers-config';
import { ProviderRouter, type ProviderEntry } from './router';

const idle: ModelProvider = {
  async *stream() {
    throw new Error('not called here');
  },
};
const entries = (...names: [string, ProviderEntry['kind']][]) => new Map(names.map(([name, kind]) => [name, { kind, provider: idle } as ProviderEntry]));
const usage = { input_tokens: 1_000_000, output_tokens: 1_000_000, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };

describe('choosing a model’s provider', () => {
  const router = new ProviderRouter(entries(['anthropic', 'claude'], ['bedrock', 'claude'], ['ollama', 'openai']), { default: 'ollama' });

  it('takes the provider a model names, keeping the colons of the model after it', () => {
    expect(router.route('ollama:qwen3:8b')).toMatchObject({ provider: 'ollama', model: 'qwen3:8b' });
    expect(router.route('bedrock:anthropic.claude-sonnet-4-5-20250929-v1:0')).toMatchObject({ provider: 'bedrock', model: 'anthropic.claude-sonnet-4-5-20250929-v1:0' });
  });

  it('sends Claude models and the sonnet/opus/haiku aliases to the default Claude provider, other models to the default provider', () => {
    expect(router.route(resolveModel('sonnet', 'x'))).toMatchObject({ provider: 'anthropic', model: 'claude-sonnet-4-6' });
    expect(router.route('qwen3')).toMatchObject({ provider: 'ollama', qualified: 'ollama:qwen3' });
    const onBedrock = new ProviderRouter(entries(['anthropic', 'claude'], ['bedrock', 'claude']), { default: 'bedrock' });
    expect(onBedrock.route(resolveModel('haiku', 'x'))).toMatchObject({ provider: 'bedrock', model: 'claude-haiku-4-5' });
  });

  it('names an unconfigured provider, and the variable that configures it', () => {
    const claudeDefault = new ProviderRouter(entries(['anthropic', 'claude']));
    expect(() => claudeDefault.route('openrouter:meta/llama')).toThrow(/provider "openrouter", which is not configured \(set ZERO_PROVIDER_OPENROUTER_URL\)/);
    expect(() => new ProviderRouter(entries(['anthropic', 'claude']), { default: 'vllm' })).toThrow(/ZERO_MODEL_PROVIDER is "vllm"/);
  });

  it('builds the fallback chain: a provider’s name stands for the same model there, the model asked for comes once', () => {
    expect(router.chain('claude-sonnet-4-6', ['bedrock', 'anthropic', 'ollama:qwen3'])).toEqual(['claude-sonnet-4-6', 'bedrock:claude-sonnet-4-6', 'ollama:qwen3']);
  });

  it('prices Claude at list prices on any Claude provider, an endpoint’s model on its table, and an unpriced one as unknown', () => {
    const priced = new ProviderRouter(new Map([
      ['anthropic', { kind: 'claude', provider: idle }],
      ['ollama', { kind: 'openai', provider: idle, prices: { qwen3: { input: 0.2, output: 0.6 } } }],
    ] as [string, ProviderEntry][]));
    expect(priced.costOf('claude-sonnet-4-6', usage)).toEqual({ usd: 18, known: true });
    expect(priced.costOf('anthropic:claude-haiku-4-5', usage)).toEqual({ usd: 6, known: true });
    expect(priced.costOf('ollama:qwen3', usage)).toEqual({ usd: 0.8, known: true });
    expect(priced.costOf('ollama:llama3.3', usage)).toEqual({ usd: 0, known: false });
  });
});

describe('the providers’ environment variables', () => {
  it('reads each named endpoint with its key, tool-less models and prices, the default provider and the fallback chain', () => {
    const config = providersConfigFromEnv({
      ZERO_MODEL_PROVIDER: 'Ollama',
      ZERO_PROVIDER_OLLAMA_URL: 'http://localhost:11434/v1/',
      ZERO_PROVIDER_OLLAMA_NO_TOOLS: 'gemma2, phi3',
      ZERO_PROVIDER_OLLAMA_PRICES: 'qwen3=0.2/0.6,llama3.3=0',
      ZERO_PROVIDER_OPENROUTER_URL: 'https://openrouter.ai/api/v1',
      ZERO_PROVIDER_OPENROUTER_KEY: 'sk-or-secret',
      ZERO_MODEL_FALLBACK: 'anthropic, openrouter:anthropic/claude-sonnet-4',
    });
    expect(config).toEqual({
      default: 'ollama',
      endpoints: {
        ollama: { url: 'http://localhost:11434/v1', noTools: ['gemma2', 'phi3'], prices: { qwen3: { input: 0.2, output: 0.6 }, 'llama3.3': { input: 0, output: 0 } }, contextWindows: {} },
        openrouter: { url: 'https://openrouter.ai/api/v1', key: 'sk-or-secret', noTools: [], prices: {}, contextWindows: {} },
      },
      fallback: ['anthropic', 'openrouter:anthropic/claude-sonnet-4'],
    });
  });

  it('refuses a URL that is not http(s) and a price that is not input/output', () => {
    expect(() => providersConfigFromEnv({ ZERO_PROVIDER_X_URL: 'localhost:11434' })).toThrow(/ZERO_PROVIDER_X_URL must be an http\(s\) URL/);
    expect(() => providersConfigFromEnv({ ZERO_PROVIDER_X_URL: 'http://h', ZERO_PROVIDER_X_PRICES: 'm=cheap' })).toThrow(/price of "m" must be input\/output/);
    expect(() => providersConfigFromEnv({ ZERO_PROVIDER_BEDROCK_URL: 'http://h' })).toThrow(/built-in provider/);
    expect(() => providersConfigFromEnv({ ZERO_MODEL_FALLBACK: 'bedrock, nowhere:model' })).toThrow(/ZERO_MODEL_FALLBACK: "nowhere:model" names provider "nowhere"/);
    expect(() => providersConfigFromEnv({ ZERO_MODEL_PROVIDER: 'vllm' })).toThrow(/ZERO_MODEL_PROVIDER is "vllm", which is not configured \(set ZERO_PROVIDER_VLLM_URL\)/);
  });
});

describe('GitHub Copilot’s variables and model table', () => {
  it('configures the provider copilot from a GitHub token, and names the token when it is missing', async () => {
    expect(providersConfigFromEnv({ ZERO_MODEL_PROVIDER: 'copilot', ZERO_COPILOT_GITHUB_TOKEN: 'ghu_x', ZERO_COPILOT_URL: 'https://api.business.githubcopilot.com/' })).toMatchObject({
      default: 'copilot',
      copilot: { githubToken: 'ghu_x', url: 'https://api.business.githubcopilot.com', prices: {} },
    });
    expect(() => providersConfigFromEnv({ ZERO_MODEL_PROVIDER: 'copilot' })).toThrow(/not configured \(set ZERO_COPILOT_GITHUB_TOKEN\)/);
    expect(() => providersConfigFromEnv({ ZERO_COPILOT_URL: 'https://api.githubcopilot.com' })).toThrow(/ZERO_COPILOT_URL is set but ZERO_COPILOT_GITHUB_TOKEN is not/);
    expect(() => providersConfigFromEnv({ ZERO_PROVIDER_COPILOT_URL: 'http://h' })).toThrow(/built-in provider/);
    expect(() => new ProviderRouter(entries(['anthropic', 'claude'])).route('copilot:gpt-5-mini')).toThrow(/set ZERO_COPILOT_GITHUB_TOKEN/);
  });

  it('gives Copilot’s models the seed’s 128k-token windows, with or without the provider named', async () => {
    const { contextWindowOf } = await import('./context-windows');
    expect(contextWindowOf('copilot:gpt-5-mini')).toBe(128_000);
    expect(contextWindowOf('gpt-4o-mini')).toBe(128_000);
    expect(contextWindowOf('copilot:claude-sonnet-4')).toBe(128_000);
    expect(contextWindowOf('claude-sonnet-4-6')).toBe(200_000);
    expect(contextWindowOf('anthropic:claude-opus-4-7')).toBe(200_000);
    expect(contextWindowOf('copilot:gpt-5-mini', { override: 50_000 })).toBe(50_000);
  });
});

describe('ZERO_MODEL_TIERS', () => {
  it('maps tiers to models, and refuses a tier that is not light, standard or heavy', async () => {
    const { tiersFromEnv, tierModel } = await import('./aliases');
    const tiers = tiersFromEnv('light = haiku, heavy=ollama:qwen3:32b');
    expect(tiers).toEqual({ light: 'haiku', heavy: 'ollama:qwen3:32b' });
    expect(tierModel('light', tiers, 'claude-sonnet-4-6')).toBe('claude-haiku-4-5');
    expect(tierModel('heavy', tiers, 'claude-sonnet-4-6')).toBe('ollama:qwen3:32b');
    expect(tierModel('standard', tiers, 'claude-sonnet-4-6')).toBe('claude-sonnet-4-6');
    expect(() => tiersFromEnv('medium=sonnet')).toThrow(/"medium=sonnet" is not tier=model/);
  });
});
