import { ZeroError } from '../errors';
import { MODEL_ALIASES } from './aliases';
import { costOf } from './pricing';
import { ModelError, type ModelEvent, type ModelProvider, type ModelRequest, type ModelStreamOptions } from './provider';
import { PROVIDER_NAME, type ProvidersConfig, type TokenPrice } from './providers-config';

/** How a provider speaks: Claude's Messages API (Anthropic, Bedrock) or OpenAI's Chat Completions. */
export type ProviderKind = 'claude' | 'openai';

export interface ProviderEntry {
  kind: ProviderKind;
  provider: ModelProvider;
  /** USD per million tokens by model, for an endpoint; Claude providers use Claude's list prices. */
  prices?: Record<string, TokenPrice>;
}

/** Where a model name leads: the provider's name, and the model as that provider names it. */
export interface Route {
  provider: string;
  model: string;
  /** `provider:model`, as costs, logs and retry events name it. */
  qualified: string;
  entry: ProviderEntry;
}

/**
 * The deployment's model providers behind one ModelProvider. A model may name its
 * provider (`bedrock:claude-sonnet-4-6`, `ollama:qwen3`); a model without one goes
 * to the deployment's default provider, except Claude models (and so the `sonnet`,
 * `opus` and `haiku` aliases), which go to the default Claude provider: the default
 * provider when it serves Claude, else Anthropic.
 *
 * A step whose provider is unavailable after its own retries (429, 529, 5xx, a
 * connection that fails, no credentials) is redone whole on the next model of the
 * fallback chain, the agent's or else the deployment's, after a `fallback` event.
 * A failure mid-stream is not a fallback: the loop retries the step as it is.
 */
export class ProviderRouter implements ModelProvider {
  private readonly defaultName: string;
  private readonly claudeName: string;

  constructor(
    private readonly providers: ReadonlyMap<string, ProviderEntry>,
    private readonly config: Pick<ProvidersConfig, 'default' | 'fallback'> = {},
  ) {
    this.defaultName = config.default ?? 'anthropic';
    if (!providers.has(this.defaultName)) {
      throw new Error(`ZERO_MODEL_PROVIDER is "${this.defaultName}", which is not configured; known providers: ${[...providers.keys()].join(', ')}`);
    }
    this.claudeName = providers.get(this.defaultName)!.kind === 'claude' ? this.defaultName : 'anthropic';
  }

  /** The provider and model a model name leads to; fails with `invalid_request` naming the unknown provider. */
  route(name: string): Route {
    const at = name.indexOf(':');
    if (at > 0) {
      const prefix = name.slice(0, at);
      const entry = this.providers.get(prefix);
      if (entry) return { provider: prefix, model: name.slice(at + 1), qualified: name, entry };
      // `qwen3:8b` is a model of an OpenAI-compatible default provider; Claude model ids never look like `name:`.
      if (PROVIDER_NAME.test(prefix) && this.providers.get(this.defaultName)!.kind === 'claude') {
        throw new ZeroError(
          'invalid_request',
          `model "${name}" names provider "${prefix}", which is not configured (set ${prefix === 'copilot' ? 'ZERO_COPILOT_GITHUB_TOKEN' : `ZERO_PROVIDER_${prefix.toUpperCase().replace(/-/g, '_')}_URL`}); known providers: ${[...this.providers.keys()].join(', ')}`,
          { field: 'model' },
        );
      }
    }
    const provider = name.startsWith('claude-') ? this.claudeName : this.defaultName;
    return { provider, model: name, qualified: `${provider}:${name}`, entry: this.providers.get(provider)! };
  }

  /**
   * Why an agent with this model and fallback chain cannot run here, or undefined: an unknown provider,
   * or a name a Claude provider cannot serve. (A model its endpoint serves without tool calling runs an
   * agent's tools through the text protocol: see text-tool-protocol.ts.)
   */
  problemWith(model: string, fallback: readonly string[] = []): { field: string; message: string } | undefined {
    const names = [{ field: 'model', name: model }, ...this.chain(model, fallback).slice(1).map((name) => ({ field: 'fallback', name }))];
    for (const { field, name } of names) {
      let route: Route;
      try {
        route = this.route(name);
      } catch (error) {
        return { field, message: (error as Error).message };
      }
      // A Claude provider serves Claude models only: a name that is none (`model: fable`) would reach the API as it is, and fail there.
      if (route.entry.kind === 'claude' && !/claude/i.test(route.model)) {
        return {
          field,
          message: `model "${name}" is not a Claude model id (claude-…), an alias (${Object.keys(MODEL_ALIASES).join(', ')}, inherit) or provider:model of a configured provider (${[...this.providers.keys()].join(', ')})`,
        };
      }
    }
    return undefined;
  }

  /** The models a step tries in order: the model asked for, then the chain (a provider's name stands for the same model there). */
  chain(model: string, fallback: readonly string[] = this.config.fallback ?? []): string[] {
    const chain = [model];
    const bare = this.safeRoute(model)?.model ?? model;
    for (const entry of fallback) {
      const name = this.providers.has(entry) ? `${entry}:${bare}` : entry;
      if (!chain.some((m) => this.same(m, name))) chain.push(name);
    }
    return chain;
  }

  /** What a call's usage cost on the price table of the provider that served `model` (a qualified name). */
  costOf(model: string, usage: Parameters<typeof costOf>[1]): { usd: number; known: boolean } {
    const route = this.safeRoute(model);
    if (!route || route.entry.kind === 'claude') return { usd: costOf(route?.model ?? model, usage), known: true };
    const price = route.entry.prices?.[route.model];
    if (!price) return { usd: 0, known: false };
    const cached = usage.cache_read_input_tokens;
    const usd = (usage.input_tokens * price.input + usage.output_tokens * price.output + cached * (price.cachedInput ?? price.input)) / 1_000_000;
    return { usd: Math.round(usd * 1e8) / 1e8, known: true };
  }

  async *stream(request: ModelRequest, signal: AbortSignal, options?: ModelStreamOptions): AsyncGenerator<ModelEvent> {
    const chain = request.fallback ? this.chain(request.model, request.fallback) : this.chain(request.model);
    for (const [i, name] of chain.entries()) {
      const route = this.route(name);
      try {
        for await (const event of route.entry.provider.stream({ ...request, model: route.model }, signal, options)) {
          if (event.type === 'message') yield { ...event, model: route.qualified, cost: this.costOf(route.qualified, event.usage) };
          else yield event;
        }
        return;
      } catch (error) {
        const next = chain[i + 1];
        if (!next || signal.aborted || !unavailable(error)) throw error;
        const to = this.route(next).qualified;
        yield { type: 'fallback', from: route.qualified, to, reason: `${route.qualified} is unavailable (${(error as Error).message}); the step is redone on ${to}` };
      }
    }
  }

  private safeRoute(name: string): Route | undefined {
    try {
      return this.route(name);
    } catch {
      return undefined;
    }
  }

  private same(a: string, b: string): boolean {
    return (this.safeRoute(a)?.qualified ?? a) === (this.safeRoute(b)?.qualified ?? b);
  }
}

/** A provider that is overloaded, rate-limited, down, unreachable or without credentials, once its own retries are spent. */
function unavailable(error: unknown): boolean {
  if (ZeroError.isInstance(error)) return error.code === 'model_not_configured';
  if (!ModelError.isInstance(error) || error.midStream) return false;
  return error.status === undefined || error.status === 429 || error.status >= 500;
}
