import { createParser, type EventSourceMessage } from 'eventsource-parser';
import * as z from 'zod';
import { guardedStream, type IdleTimer, type StreamGuard } from './idle-timer';
import { toChatCompletionsRequest } from './openai-request';
import { TextToolCalls, textAnswerContent } from './text-tool-protocol';
import {
  ModelError,
  type ContentBlockParam,
  type ModelEvent,
  type ModelProvider,
  type ModelRequest,
  type ModelStreamOptions,
  type ModelUsage,
} from './provider';
import type { OpenAIEndpointConfig } from './providers-config';

/** One streamed chunk, as far as Zero reads it (servers add fields of their own). */
const chunkSchema = z.looseObject({
  choices: z
    .array(
      z.looseObject({
        delta: z
          .looseObject({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.looseObject({
                  index: z.number().int().nonnegative(),
                  id: z.string().nullish(),
                  function: z.looseObject({ name: z.string().nullish(), arguments: z.string().nullish() }).nullish(),
                }),
              )
              .nullish(),
          })
          .nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .nullish(),
  usage: z
    .looseObject({
      prompt_tokens: z.number().int().nonnegative().nullish(),
      completion_tokens: z.number().int().nonnegative().nullish(),
      prompt_tokens_details: z.looseObject({ cached_tokens: z.number().int().nonnegative().nullish() }).nullish(),
    })
    .nullish(),
  error: z.looseObject({ message: z.string().optional() }).nullish(),
});

/** Chat Completions' finish reasons as Messages API stop reasons. */
const STOP_REASONS: Record<string, string> = { stop: 'end_turn', tool_calls: 'tool_use', function_call: 'tool_use', length: 'max_tokens', content_filter: 'refusal' };

/**
 * Where an endpoint's authorisation comes from when it is not a fixed key: a short-lived token
 * (GitHub Copilot's), fetched and renewed by its owner.
 */
export interface EndpointCredentials {
  /** The `authorization` header of the next request; throws a ModelError when none can be had. */
  authorization(): Promise<string>;
  /** The endpoint refused `authorization` (401): the next call must not get it again. */
  refused(authorization: string): void;
  /** Headers the endpoint requires beside it. */
  readonly headers?: Record<string, string>;
}

/**
 * A model behind any server speaking OpenAI's Chat Completions API with streaming and tools
 * (Ollama, vLLM, LM Studio, OpenRouter, LiteLLM), through `fetch` and an SSE parser.
 * Like the Anthropic SDK, it retries 429, 5xx and failed connections before the response
 * starts (honouring `retry-after`); a failure after it started is a `midStream` ModelError,
 * which the loop retries as a whole step. A model the endpoint declares without tool calling
 * (`noTools`) is offered an agent's tools through the text protocol (text-tool-protocol.ts).
 */
export class OpenAICompatibleProvider implements ModelProvider {
  constructor(
    readonly name: string,
    private readonly endpoint: OpenAIEndpointConfig,
    private readonly credentials?: EndpointCredentials,
  ) {}

  async *stream(request: ModelRequest, signal: AbortSignal, options: ModelStreamOptions = {}): AsyncGenerator<ModelEvent> {
    const textTools = request.tools.length > 0 && !!this.endpoint.noTools?.includes(request.model);
    yield* guardedStream(signal, options.idleTimeoutMs, (guard) => this.respond(request, guard, textTools));
  }

  private async *respond(request: ModelRequest, { signal, idle, interrupted }: StreamGuard, textTools: boolean): AsyncGenerator<ModelEvent> {
    const response = await this.send(request, signal, interrupted, idle, textTools);
    yield* this.relay(response, idle, interrupted, textTools ? new TextToolCalls() : undefined);
  }

  /**
   * Posts the request, retrying what the Anthropic SDK retries; resolves with a response that streams.
   * With credentials, a 401 renews them once and sends again (not counted as a retry).
   */
  private async send(request: ModelRequest, signal: AbortSignal, interrupted: () => Error | undefined, idle: IdleTimer, textTools: boolean): Promise<Response> {
    const body = JSON.stringify(toChatCompletionsRequest(request, { textTools }));
    const maxRetries = this.endpoint.maxRetries ?? 2;
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      let failure: ModelError;
      let wait = Math.min(500 * 2 ** attempt, 8_000) * (0.75 + Math.random() * 0.25);
      try {
        const authorization = this.credentials ? await this.credentials.authorization() : this.endpoint.key ? `Bearer ${this.endpoint.key}` : undefined;
        const response = await fetch(`${this.endpoint.url}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...this.credentials?.headers, ...(authorization ? { authorization } : {}) },
          body,
          signal,
        });
        idle.reset();
        if (response.ok && response.body) return response;
        if (response.status === 401 && this.credentials && authorization && !renewed) {
          renewed = true;
          this.credentials.refused(authorization);
          await response.body?.cancel();
          attempt--;
          continue;
        }
        const retryable = response.status === 408 || response.status === 409 || response.status === 429 || response.status >= 500;
        failure = new ModelError(`${this.name} answered ${response.status}: ${await errorMessage(response)}`, false, response.status);
        if (!retryable) throw failure;
        const after = Number(response.headers.get('retry-after'));
        if (response.headers.has('retry-after') && Number.isFinite(after) && after >= 0) wait = Math.min(after * 1000, 60_000);
      } catch (error) {
        const stop = interrupted();
        if (stop) throw stop;
        if (ModelError.isInstance(error)) throw error;
        failure = new ModelError(`${this.name} could not be reached: ${describe(error)}`, false);
      }
      if (attempt >= maxRetries) throw failure;
      await new Promise((resolve) => setTimeout(resolve, wait));
      const stop = interrupted();
      if (stop) throw stop;
    }
  }

  /** `textCalls`: the answer is read for `<tool_call>` blocks, which are not shown as text. */
  private async *relay(response: Response, idle: IdleTimer, interrupted: (usage?: ModelUsage) => Error | undefined, textCalls?: TextToolCalls): AsyncGenerator<ModelEvent> {
    const usage: ModelUsage = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0 };
    let text = '';
    /** Tool calls by their index in the stream: several are streamed side by side. */
    const calls = new Map<number, { id: string; name: string; arguments: string }>();
    let finish: string | undefined;
    let done = false;
    const pending: EventSourceMessage[] = [];
    const parser = createParser({ onEvent: (event) => pending.push(event) });
    const decoder = new TextDecoder();
    const reader = response.body!.getReader();
    try {
      for (;;) {
        const { value, done: ended } = await reader.read();
        if (ended) break;
        idle.reset();
        parser.feed(decoder.decode(value, { stream: true }));
        for (const event of pending.splice(0)) {
          if (event.data.trim() === '[DONE]') {
            done = true;
            continue;
          }
          const chunk = parseChunk(event.data);
          if (chunk.error) throw new ModelError(`${this.name} failed mid-stream: ${chunk.error.message ?? 'unknown error'}`, true);
          if (chunk.usage) {
            const cached = chunk.usage.prompt_tokens_details?.cached_tokens ?? 0;
            usage.input_tokens = Math.max(0, (chunk.usage.prompt_tokens ?? 0) - cached);
            usage.cache_read_input_tokens = cached;
            usage.output_tokens = chunk.usage.completion_tokens ?? 0;
          }
          for (const choice of chunk.choices ?? []) {
            const delta = choice.delta;
            if (delta?.content) {
              text += delta.content;
              const shown = textCalls ? textCalls.push(delta.content) : delta.content;
              if (shown) yield { type: 'text', delta: shown };
            }
            for (const piece of delta?.tool_calls ?? []) {
              let call = calls.get(piece.index);
              if (!call) calls.set(piece.index, (call = { id: '', name: '', arguments: '' }));
              if (piece.id) call.id = piece.id;
              if (piece.function?.name) call.name += piece.function.name;
              const args = piece.function?.arguments;
              if (args) {
                call.arguments += args;
                if (call.id && call.name) yield { type: 'tool_input_delta', id: call.id, name: call.name, delta: args };
              }
            }
            if (choice.finish_reason) finish = choice.finish_reason;
          }
        }
      }
    } catch (error) {
      throw interrupted(usage) ?? (ModelError.isInstance(error) ? error : new ModelError(`${this.name} stream failed: ${describe(error)}`, true));
    } finally {
      reader.releaseLock();
    }
    const stop = interrupted(usage);
    if (stop) throw stop;
    if (!finish && !done) throw new ModelError(`${this.name}'s stream ended before its last chunk`, true);
    if (textCalls) {
      const answer = textCalls.end();
      if (answer.rest) yield { type: 'text', delta: answer.rest };
      for (const call of answer.calls) yield { type: 'tool_use', id: call.id, name: call.name, input: call.input };
      yield { type: 'message', content: textAnswerContent(answer.text, answer.calls), stopReason: answer.calls.length ? 'tool_use' : (STOP_REASONS[finish ?? 'stop'] ?? finish ?? 'end_turn'), usage };
      return;
    }

    const content: ContentBlockParam[] = text ? [{ type: 'text', text }] : [];
    for (const [index, call] of [...calls.entries()].sort(([a], [b]) => a - b)) {
      const id = call.id || `call_${index}`;
      const input = parseArguments(call.arguments);
      content.push({ type: 'tool_use', id, name: call.name, input });
      yield { type: 'tool_use', id, name: call.name, input };
    }
    // Some servers say `stop` after tool calls: the calls decide.
    const stopReason = calls.size ? 'tool_use' : (STOP_REASONS[finish ?? 'stop'] ?? finish ?? 'end_turn');
    yield { type: 'message', content, stopReason, usage };
  }
}

function parseChunk(data: string): z.infer<typeof chunkSchema> {
  let json: unknown;
  try {
    json = JSON.parse(data);
  } catch {
    throw new ModelError(`the stream sent a chunk that is not JSON: ${data.slice(0, 200)}`, true);
  }
  const parsed = chunkSchema.safeParse(json);
  if (!parsed.success) throw new ModelError(`the stream sent a malformed chunk: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`, true);
  return parsed.data;
}

/** Arguments that are not a JSON object are kept as the marker the loop answers with an error result. */
function parseArguments(json: string): unknown {
  if (!json.trim()) return {};
  try {
    return JSON.parse(json);
  } catch {
    return { __invalid_json__: json.slice(0, 2000) };
  }
}

async function errorMessage(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const body = JSON.parse(text) as { error?: { message?: string } | string; message?: string };
    const message = typeof body.error === 'string' ? body.error : (body.error?.message ?? body.message);
    if (message) return message.slice(0, 500);
  } catch {
    // not JSON: the text itself
  }
  return text.slice(0, 500) || response.statusText;
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  return cause instanceof Error ? `${error.message} (${cause.message})` : error.message;
}
