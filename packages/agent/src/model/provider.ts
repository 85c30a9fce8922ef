import type Anthropic from '@anthropic-ai/sdk';
import { defineErrorClass } from '../errors';

export type MessageParam = Anthropic.MessageParam;
export type ContentBlockParam = Anthropic.ContentBlockParam;
export type TextBlockParam = Anthropic.TextBlockParam;
export type ToolUnion = Anthropic.ToolUnion;
export type ToolParam = Anthropic.Tool;

/** Token counts of one model call. */
export interface ModelUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** One model call: Anthropic's Messages API shapes, which other providers translate from. */
export interface ModelRequest {
  model: string;
  system: TextBlockParam[];
  messages: MessageParam[];
  tools: ToolUnion[];
  maxTokens: number;
  /** Extended thinking with this budget (tokens, within `maxTokens`); absent: off. */
  thinking?: { budgetTokens: number };
  /** The agent's fallback chain (models or provider names), replacing the deployment's; see `ProviderRouter`. */
  fallback?: readonly string[];
}

/** What a provider streams back while a call is in flight. */
export type ModelEvent =
  | { type: 'text'; delta: string }
  /** A piece of the model's extended thinking; `redacted`: a block the API encrypted (no text to show). */
  | { type: 'thinking'; delta: string; redacted?: boolean }
  /** A piece of a tool call's input JSON, as the model writes it (the whole input follows in `tool_use`). */
  | { type: 'tool_input_delta'; id: string; name: string; delta: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  /** A tool the provider runs itself (web search): relayed to clients, never executed by Zero. */
  | { type: 'server_tool_use'; id: string; name: string; input: unknown }
  | { type: 'server_tool_result'; id: string; name: string; content: string; is_error: boolean }
  /** The model's provider was unavailable: the step is redone whole on `to` (a `retry` event for clients); `reason` says so. */
  | { type: 'fallback'; from: string; to: string; reason: string }
  | {
      type: 'message';
      content: ContentBlockParam[];
      stopReason: string | null;
      usage: ModelUsage;
      /** The model that answered, provider included, when a router chose it (a fallback's differs from the one asked for). */
      model?: string;
      /** What the call cost on its provider's price table; `known: false` when that table has no price for the model. */
      cost?: { usd: number; known: boolean };
    };

/**
 * A model failure. `midStream` failures (an `error` event after the response
 * started, which the SDK does not retry) are retried by the loop as a whole step.
 */
export class ModelError extends defineErrorClass('ModelError') {
  constructor(
    message: string,
    readonly midStream: boolean,
    readonly status?: number,
  ) {
    super(message);
  }
}

/**
 * The caller aborted the call (a cancel, an interrupt, the step's time running
 * out). Not a failure of the model: the caller knows why and decides what follows.
 */
export class ModelCallAborted extends defineErrorClass('ModelCallAborted') {
  /** @param usage what the call had used when it was aborted (billed all the same), when the response had begun */
  constructor(readonly usage?: ModelUsage) {
    super('the model call was aborted');
  }
}

export interface ModelStreamOptions {
  /**
   * Longest silence allowed, before the response's headers and between its
   * events; past it the call fails with a `midStream` ModelError (a stalled
   * connection, which the HTTP client's own timeouts bound only after minutes).
   */
  idleTimeoutMs?: number;
}

/**
 * A model behind Zero's loop. `stream` relays events as they arrive and must
 * end with one `message` event, or throw a ModelError, or ModelCallAborted
 * once `signal` is aborted.
 */
export interface ModelProvider {
  stream(request: ModelRequest, signal: AbortSignal, options?: ModelStreamOptions): AsyncIterable<ModelEvent>;
}
