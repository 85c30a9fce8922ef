import { BaseAnthropic } from '@anthropic-ai/sdk/client';
import { APIError, APIUserAbortError } from '@anthropic-ai/sdk/error';
import { Messages, type RawMessageStreamEvent, type WebSearchToolResultBlock } from '@anthropic-ai/sdk/resources/messages';
import { ZeroError } from '../errors';
import { guardedStream, type IdleTimer } from './idle-timer';
import { thinkingParams } from './thinking';
import {
  ModelCallAborted,
  ModelError,
  type ContentBlockParam,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type ModelStreamOptions,
  type ModelUsage,
} from './provider';

// The model aliases are in ./aliases.ts: naming a model does not load the SDK, which loads with the first call.

export interface AnthropicProviderOptions {
  apiKey?: string;
  baseURL?: string;
  /** Retries of 429/529/5xx and connection errors, done by the SDK. */
  maxRetries?: number;
  timeoutMs?: number;
}

/**
 * The SDK's client with the Messages API only: the full `Anthropic` client
 * constructs every resource (beta, models, organizations…), about 300 KB that
 * each cold start would load and evaluate for nothing.
 */
class MessagesClient extends BaseAnthropic {
  messages = new Messages(this);
}

/** Claude through `@anthropic-ai/sdk`, streaming raw events so each text delta is relayed the moment it arrives. */
export class AnthropicProvider implements ModelProvider {
  protected client?: MessagesClient;

  constructor(private readonly options: AnthropicProviderOptions) {}

  private getClient(): MessagesClient {
    if (this.client) return this.client;
    const { apiKey, baseURL } = this.options;
    if (!apiKey && !baseURL) {
      throw new ZeroError('model_not_configured', 'No model is configured: set ANTHROPIC_API_KEY (or ANTHROPIC_BASE_URL for a compatible server) and restart Zero.');
    }
    this.client = new MessagesClient({
      // A compatible server reached through ANTHROPIC_BASE_URL may need no key.
      apiKey: apiKey || 'not-set',
      baseURL: baseURL || undefined,
      maxRetries: this.options.maxRetries ?? 3,
      timeout: this.options.timeoutMs ?? 10 * 60_000,
    });
    return this.client;
  }

  async *stream(request: ModelRequest, signal: AbortSignal, options: ModelStreamOptions = {}): AsyncGenerator<ModelEvent> {
    const client = this.getClient();
    // The request is aborted by the caller's signal, or by silence longer than the idle timeout.
    yield* guardedStream(signal, options.idleTimeoutMs, ({ signal, idle, interrupted }) => this.relay(client, request, signal, idle, interrupted));
  }

  private async *relay(
    client: MessagesClient,
    request: ModelRequest,
    signal: AbortSignal,
    idle: IdleTimer,
    interrupted: (usage?: ModelUsage) => Error | undefined,
  ): AsyncGenerator<ModelEvent> {
    let stream: AsyncIterable<RawMessageStreamEvent>;
    try {
      stream = await client.messages.create(
        {
          model: request.model,
          max_tokens: request.maxTokens,
          system: request.system,
          // Without thinking, earlier turns' thinking blocks are left out (they are only ever needed in a thinking tool loop).
          messages: request.thinking ? request.messages : withoutThinking(request.messages),
          tools: request.tools.length ? request.tools : undefined,
          ...(request.thinking ? thinkingParams(request.model, request.thinking.budgetTokens) : {}),
          stream: true,
        },
        // Interleaved thinking: the model thinks again between tool calls (Claude 4 models).
        { signal, ...(request.thinking ? { headers: { 'anthropic-beta': INTERLEAVED_THINKING } } : {}) },
      );
    } catch (error) {
      throw interrupted() ?? toModelError(error, false);
    }

    const blocks: (ContentBlockParam & { partialJson?: string })[] = [];
    const usage: ModelUsage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    let stopReason: string | null = null;
    let completed = false;
    try {
      for await (const event of stream) {
        idle.reset();
        switch (event.type) {
          case 'message_start':
            mergeUsage(usage, event.message.usage);
            break;
          case 'content_block_start': {
            const block = event.content_block;
            if (block.type === 'text') blocks[event.index] = { type: 'text', text: '' };
            else if (block.type === 'thinking') blocks[event.index] = { type: 'thinking', thinking: '', signature: '' };
            else if (block.type === 'tool_use' || block.type === 'server_tool_use')
              blocks[event.index] = { type: block.type, id: block.id, name: block.name, input: {}, partialJson: '' } as never;
            else blocks[event.index] = block as ContentBlockParam;
            if (block.type === 'redacted_thinking') yield { type: 'thinking', delta: '', redacted: true };
            if (block.type === 'web_search_tool_result') {
              const names = new Map(blocks.filter((b) => b?.type === 'server_tool_use').map((b) => [(b as { id: string }).id, (b as { name: string }).name]));
              yield { type: 'server_tool_result', id: block.tool_use_id, name: names.get(block.tool_use_id) ?? 'web_search', ...describeSearchResult(block.content) };
            }
            break;
          }
          case 'content_block_delta': {
            const block = blocks[event.index];
            if (!block) break;
            if (event.delta.type === 'text_delta' && block.type === 'text') {
              block.text += event.delta.text;
              yield { type: 'text', delta: event.delta.text };
            } else if (event.delta.type === 'thinking_delta' && block.type === 'thinking') {
              // Kept exactly as received, with its signature: the API checks both when a tool loop sends them back.
              block.thinking += event.delta.thinking;
              yield { type: 'thinking', delta: event.delta.thinking };
            } else if (event.delta.type === 'signature_delta' && block.type === 'thinking') {
              block.signature += event.delta.signature;
            } else if (event.delta.type === 'input_json_delta' && (block.type === 'tool_use' || block.type === 'server_tool_use')) {
              block.partialJson = (block.partialJson ?? '') + event.delta.partial_json;
              if (event.delta.partial_json) yield { type: 'tool_input_delta', id: block.id, name: block.name, delta: event.delta.partial_json };
            }
            break;
          }
          case 'content_block_stop': {
            const block = blocks[event.index];
            if (block && (block.type === 'tool_use' || block.type === 'server_tool_use')) {
              block.input = parseToolInput(block.partialJson ?? '');
              delete block.partialJson;
              yield { type: block.type, id: block.id, name: block.name, input: block.input };
            }
            break;
          }
          case 'message_delta':
            stopReason = event.delta.stop_reason ?? stopReason;
            mergeUsage(usage, event.usage);
            break;
          case 'message_stop':
            completed = true;
            break;
        }
      }
    } catch (error) {
      throw interrupted(usage) ?? toModelError(error, true);
    }
    if (!completed) throw interrupted(usage) ?? new ModelError('the model stream ended before message_stop', true);
    const content = blocks.filter((b) => b !== undefined).filter((b) => !(b.type === 'text' && b.text === ''));
    yield { type: 'message', content, stopReason, usage };
  }
}

const INTERLEAVED_THINKING = 'interleaved-thinking-2025-05-14';

/** The conversation without thinking blocks, for a request that does not think. */
function withoutThinking(messages: ModelRequest['messages']): ModelRequest['messages'] {
  return messages.map((m) =>
    m.role === 'assistant' && Array.isArray(m.content) && m.content.some((b) => b.type === 'thinking' || b.type === 'redacted_thinking')
      ? { ...m, content: m.content.filter((b) => b.type !== 'thinking' && b.type !== 'redacted_thinking') }
      : m,
  );
}

/** A web search result block as the text clients see: titles and URLs (the page contents stay encrypted for the model). */
function describeSearchResult(content: WebSearchToolResultBlock['content']): { content: string; is_error: boolean } {
  if (!Array.isArray(content)) return { content: `web search failed: ${content.error_code}`, is_error: true };
  if (content.length === 0) return { content: 'no results', is_error: false };
  return { content: content.map((r) => `- ${r.title} (${r.url})${r.page_age ? `, ${r.page_age}` : ''}`).join('\n'), is_error: false };
}

/** Tool input that is not a JSON object is kept as a marker the loop answers with an error result. */
function parseToolInput(json: string): unknown {
  if (!json.trim()) return {};
  try {
    return JSON.parse(json);
  } catch {
    return { __invalid_json__: json.slice(0, 2000) };
  }
}

function mergeUsage(into: ModelUsage, from: Partial<Record<keyof ModelUsage, number | null>> | null | undefined) {
  if (!from) return;
  for (const key of Object.keys(into) as (keyof ModelUsage)[]) {
    const value = from[key];
    if (typeof value === 'number') into[key] = value;
  }
}

function toModelError(error: unknown, midStream: boolean): Error {
  if (error instanceof APIUserAbortError) return new ModelCallAborted();
  if (error instanceof APIError) {
    const status = typeof error.status === 'number' ? error.status : undefined;
    // An APIError raised while iterating is the stream's `error` event, which the SDK does not retry.
    return new ModelError(error.message, midStream, status);
  }
  return new ModelError(error instanceof Error ? error.message : String(error), midStream);
}
