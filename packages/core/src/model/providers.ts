import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic';
import type { ProvidersConfig } from './providers-config';
import { lazyProvider, ProviderRouter, type ProviderEntry } from './router';

/** The deployment's providers, configured from `ProvidersConfig`, behind one router. */
export function createProviderRouter(anthropic: AnthropicProviderOptions, config: ProvidersConfig = {}): ProviderRouter {
  const providers = new Map<string, ProviderEntry>([['anthropic', { kind: 'claude', provider: new AnthropicProvider(anthropic) }]]);
  for (const [name, endpoint] of Object.entries(config.endpoints ?? {})) {
    providers.set(name, {
      kind: 'openai',
      provider: lazyProvider(async () => new (await import('./openai-compatible')).OpenAICompatibleProvider(name, endpoint)),
      noTools: endpoint.noTools,
      prices: endpoint.prices,
    });
  }
  return new ProviderRouter(providers, config);
}

/** Values the providers' configuration holds that must never reach a log or an event: the endpoints' keys. */
export function providerSecrets(config: ProvidersConfig = {}): string[] {
  return Object.values(config.endpoints ?? {}).flatMap((endpoint) => (endpoint.key ? [endpoint.key] : []));
}
