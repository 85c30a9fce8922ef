import { AnthropicBedrock } from '@anthropic-ai/bedrock-sdk';
import { AnthropicProvider } from './anthropic';
import type { ModelEvent, ModelRequest, ModelStreamOptions } from './provider';
import type { BedrockConfig } from './providers-config';

/**
 * Bedrock's ids of Claude models Zero's aliases name. A model id with a dot is taken as Bedrock's
 * own (`anthropic.claude-…-v1:0`, an inference profile such as `us.anthropic.…` or `global.anthropic.…`);
 * `ZERO_BEDROCK_MODELS` adds or replaces entries, and a Claude id found nowhere is asked for as `anthropic.<id>`.
 */
const BEDROCK_IDS: Record<string, string> = {
  'claude-sonnet-4-5': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-haiku-4-5': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-opus-4-1': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-sonnet-4-0': 'anthropic.claude-sonnet-4-20250514-v1:0',
};

export function bedrockModelId(model: string, configured: Record<string, string> = {}): string {
  return configured[model] ?? (model.includes('.') ? model : (BEDROCK_IDS[model] ?? `anthropic.${model}`));
}

/**
 * Claude on Amazon Bedrock through `@anthropic-ai/bedrock-sdk`: the Anthropic provider's
 * streaming, tool use, prompt caching and usage, over InvokeModelWithResponseStream signed
 * with the function role's IAM credentials (no Anthropic key). Bedrock runs no server tools:
 * `web_search` is not offered there.
 */
export class BedrockProvider extends AnthropicProvider {
  constructor(private readonly config: BedrockConfig & { maxRetries?: number }) {
    super({});
    const options = {
      awsRegion: config.region ?? process.env.AWS_REGION ?? 'us-east-1',
      ...(config.baseURL ? { baseURL: config.baseURL } : {}),
      maxRetries: config.maxRetries ?? 3,
      timeout: 10 * 60_000,
      // IAM only: an AWS_BEARER_TOKEN_BEDROCK in the environment is not used.
      apiKey: null,
    };
    const { credentials } = config;
    const client = credentials
      ? new AnthropicBedrock({ ...options, awsAccessKey: credentials.accessKeyId, awsSecretKey: credentials.secretAccessKey, awsSessionToken: credentials.sessionToken ?? null })
      : new AnthropicBedrock(options);
    this.client = client as unknown as AnthropicProvider['client'];
  }

  override stream(request: ModelRequest, signal: AbortSignal, options?: ModelStreamOptions): AsyncGenerator<ModelEvent> {
    const tools = request.tools.filter((tool) => 'input_schema' in tool);
    return super.stream({ ...request, model: bedrockModelId(request.model, this.config.models), tools }, signal, options);
  }
}
