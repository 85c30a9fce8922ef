import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic';
import { lazyProvider } from './lazy-provider';
import type { ProvidersConfig } from './providers-config';
import { ProviderRouter, type ProviderEntry } from './router';

/** The deployment's providers, configured from `ProvidersConfig`, behind one router. */
export function createProviderRouter(anthropic: AnthropicProviderOptions, config: ProvidersConfig = {}): ProviderRouter {
  const providers = new Map<string, ProviderEntry>([['anthropic', { kind: 'claude', provider: new AnthropicProvider(anthropic) }]]);
  for (const [name, endpoint] of Object.entries(config.endpoints ?? {})) {
    providers.set(name, {
      kind: 'openai',
      provider: lazyProvider(async () => new (await import('./openai-compatible')).OpenAICompatibleProvider(name, endpoint)),
      prices: endpoint.prices,
    });
  }
  if (config.copilot) {
    const copilot = config.copilot;
    providers.set('copilot', {
      kind: 'openai',
      provider: lazyProvider(async () => (await import('./copilot')).createCopilotProvider({ maxRetries: anthropic.maxRetries, ...copilot })),
      prices: copilot.prices,
    });
  }
  if (config.bedrock || config.default === 'bedrock') {
    const bedrock = config.bedrock ?? {};
    providers.set('bedrock', { kind: 'claude', provider: lazyProvider(async () => new (await import('./bedrock')).BedrockProvider({ ...bedrock, maxRetries: anthropic.maxRetries })) });
  }
  return new ProviderRouter(providers, config);
}

