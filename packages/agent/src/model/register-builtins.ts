import { AnthropicProvider, type AnthropicProviderOptions } from './anthropic';
import { lazyProvider } from './lazy-provider';
import type { ProvidersConfig } from './providers-config';
import type { ProviderEntry } from './router';

/** Adds one provider under its name (the first part of a `provider/model` id). */
export type RegisterProvider = (name: string, entry: ProviderEntry) => void;

/**
 * Zero's providers, one line each (as pi-mono's `register-builtins.ts`): Anthropic always, each other
 * one when the configuration names it. All but Anthropic's load their code on their first call, so a
 * cold start pays only for the providers it uses. A new provider is one more line here.
 */
export function registerBuiltinProviders(register: RegisterProvider, anthropic: AnthropicProviderOptions, config: ProvidersConfig): void {
  const { maxRetries } = anthropic;
  const { copilot, bedrock } = config;
  register('anthropic', { kind: 'claude', provider: new AnthropicProvider(anthropic) });
  for (const [name, endpoint] of Object.entries(config.endpoints ?? {})) register(name, { kind: 'openai', prices: endpoint.prices, provider: lazyProvider(async () => new (await import('./openai-compatible')).OpenAICompatibleProvider(name, endpoint)) });
  if (copilot) register('copilot', { kind: 'openai', prices: copilot.prices, provider: lazyProvider(async () => (await import('./copilot')).createCopilotProvider({ maxRetries, ...copilot })) });
  if (bedrock || config.default === 'bedrock') register('bedrock', { kind: 'claude', provider: lazyProvider(async () => new (await import('./bedrock')).BedrockProvider({ ...bedrock, maxRetries })) });
}
