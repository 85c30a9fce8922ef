import type { AnthropicProviderOptions } from './anthropic';
import type { ProvidersConfig } from './providers-config';
import { registerBuiltinProviders } from './register-builtins';
import { ProviderRouter, type ProviderEntry } from './router';

/** The deployment's providers, configured from `ProvidersConfig`, behind one router (see `register-builtins.ts`). */
export function createProviderRouter(anthropic: AnthropicProviderOptions, config: ProvidersConfig = {}): ProviderRouter {
  const providers = new Map<string, ProviderEntry>();
  registerBuiltinProviders((name, entry) => providers.set(name, entry), anthropic, config);
  return new ProviderRouter(providers, config);
}
