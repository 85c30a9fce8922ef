import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PromptCache, billOf, type Bill, type PromptCacheOptions } from './prompt-cache';

const DEFAULT_RULE = new PromptCache();

/** One scripted model response. */
export interface FakeTurn {
  /** Text, streamed as the given chunks (a string is split into words). */
  text?: string | string[];
  toolCalls?: { id?: string; name: string; input: unknown }[];
  /** Server-side web searches the "provider" ran this turn, streamed before the text: server_tool_use + web_search_tool_result. */
  webSearches?: { id: string; query: string; results: { title: string; url: string }[] | { error_code: string } }[];
  stopReason?: 'end_turn' | 'tool_use' | 'max_tokens' | 'pause_turn';
  usage?: Partial<{ input_tokens: number; output_tokens: number; cache_read_input_tokens: number; cache_creation_input_tokens: number }>;
  /** Extended thinking, streamed first as thinking_delta chunks and a signature_delta, when the request enables thinking. */
  thinking?: string;
  /** A redacted_thinking block (its opaque data), when the request enables thinking. */
  redactedThinking?: string;
  /** Pause between streamed deltas. */
  deltaDelayMs?: number;
  /** Send an `error` event after this many text chunks, then end the stream. */
  failAfterChunks?: number;
  /** Answer with this HTTP error instead of a stream. */
  status?: number;
  retryAfterSeconds?: number;
  /** Hold the response open without answering until the client gives up. */
  hang?: boolean;
  /** Answer only once this settles (a test releases a response when it has done what it had to while the call was in flight). */
  after?: Promise<unknown>;
  /** Send the headers and this many text chunks, then nothing more (a stream stalled after its headers). */
  stallAfterChunks?: number;
  /** Stream each tool call's input JSON in this many input_json_delta chunks (default 2)… */
  inputChunks?: number;
  /** …with this pause before each chunk. */
  inputDelayMs?: number;
}

export type FakeResponder = (request: FakeRequest, index: number) => FakeTurn;

export interface FakeRequest {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    system?: { type: 'text'; text: string; cache_control?: unknown }[] | string;
    messages: { role: string; content: unknown }[];
    tools?: { name: string; cache_control?: unknown }[];
    /** Automatic caching: a breakpoint on the last block. */
    cache_control?: unknown;
    thinking?: { type: string; budget_tokens?: number };
    output_config?: { effort?: string };
    stream?: boolean;
    max_tokens: number;
  };
  /** When the request arrived (performance.now()). */
  at: number;
}

/**
 * A fake Anthropic Messages API on loopback, speaking the real streaming wire
 * protocol (message_start, content_block_*, text_delta, input_json_delta,
 * message_delta, message_stop, ping, mid-stream error, 429/529 with
 * retry-after), scripted per test so the real SDK is exercised end to end.
 */
export class FakeAnthropic {
  readonly requests: FakeRequest[] = [];
  private queue: FakeTurn[] = [];
  private responder?: FakeResponder;
  private server?: Server;
  private readonly open = new Set<ServerResponse>();
  /** Called with performance.now() as each text delta is written (relay benchmarks). */
  onDelta?: (at: number, text: string) => void;
  /** Called with performance.now() when a streamed response has been written completely. */
  onResponseEnd?: (request: FakeRequest, at: number) => void;
  /** With prompt-cache simulation on: what each request would have been billed, in order. */
  readonly bills: Bill[] = [];
  private cache?: PromptCache;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    this.server.keepAliveTimeout = 60_000;
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** Queues responses, answered in order. */
  script(...turns: FakeTurn[]): this {
    this.queue.push(...turns);
    return this;
  }

  /** Answers every request with a function of the request (used when the order is not fixed). */
  respondWith(responder: FakeResponder): this {
    this.responder = responder;
    return this;
  }

  /**
   * Opt-in: usage comes from a simulated prompt cache and a fixed
   * tokens-per-character rule (scripted `usage` still wins), and each
   * request's bill at list prices is kept in `bills`.
   */
  simulatePromptCache(options?: PromptCacheOptions): this {
    this.cache = new PromptCache(options);
    return this;
  }

  reset(): void {
    this.queue = [];
    this.responder = undefined;
    this.requests.length = 0;
    this.bills.length = 0;
    this.thinkingSent.clear();
    this.thinkingRefusals.length = 0;
    this.cache?.clear();
  }

  get pending(): number {
    return this.queue.length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || !req.url?.startsWith('/v1/messages')) {
      return sendError(res, 404, 'not_found_error', `the fake serves POST /v1/messages, not ${req.method} ${req.url}`);
    }
    const request: FakeRequest = { headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: performance.now() };
    const index = this.requests.push(request) - 1;
    // As the API does: in a tool loop with thinking on, the last assistant turn's thinking must come back unchanged.
    const altered = this.alteredThinking(request) ?? badMedia(request);
    if (altered) return sendError(res, 400, 'invalid_request_error', altered);
    const turn = this.queue.shift() ?? this.responder?.(request, index);
    if (!turn) return sendError(res, 500, 'api_error', 'the fake Anthropic server has no scripted response left');
    if (turn.status) {
      const type = turn.status === 429 ? 'rate_limit_error' : turn.status === 529 ? 'overloaded_error' : turn.status === 401 ? 'authentication_error' : 'api_error';
      const headers: Record<string, string> = turn.retryAfterSeconds !== undefined ? { 'retry-after': String(turn.retryAfterSeconds) } : {};
      return sendError(res, turn.status, type, `scripted ${turn.status}`, headers);
    }
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (turn.hang) return;
    if (turn.after) await turn.after.catch(() => undefined);
    if (res.destroyed) return;
    await this.stream(res, request, turn);
  }

  /** The thinking blocks this server sent, by the tool calls they came with. */
  private readonly thinkingSent = new Map<string, { type: string; thinking?: string; signature?: string; data?: string }[]>();
  /** Requests the API would refuse for their thinking (400), with its reason; counted for tests. */
  readonly thinkingRefusals: string[] = [];

  /** The image and document blocks of the request's user turns, as the API received them (base64 decoded to their size and first bytes). */
  mediaBlocks(index = -1): { type: 'image' | 'document'; media_type: string; bytes: number; head: string; title?: string }[] {
    const request = this.requests.at(index);
    if (!request) return [];
    return userBlocks(request)
      .filter((b) => b.type === 'image' || b.type === 'document')
      .map((b) => {
        const source = b.source as { media_type: string; data: string };
        const bytes = Buffer.from(source.data, 'base64');
        return { type: b.type as 'image' | 'document', media_type: source.media_type, bytes: bytes.byteLength, head: bytes.subarray(0, 8).toString('latin1'), ...(typeof b.title === 'string' ? { title: b.title } : {}) };
      });
  }

  private alteredThinking(request: FakeRequest): string | undefined {
    if (!thinkingOn(request)) return undefined;
    const messages = request.body.messages;
    const index = messages.findLastIndex((m) => m.role === 'assistant');
    const last = messages[index];
    if (!last || !Array.isArray(last.content)) return undefined;
    const blocks = last.content as { type: string; id?: string; thinking?: string; signature?: string; data?: string }[];
    const call = blocks.find((b) => b.type === 'tool_use' && this.thinkingSent.has(b.id!));
    if (!call) return undefined;
    const sent = this.thinkingSent.get(call.id!)!;
    const got = blocks.filter((b) => b.type === 'thinking' || b.type === 'redacted_thinking').map(({ type, thinking, signature, data }) => ({ type, thinking, signature, data }));
    const same = got.length === sent.length && sent.every((s, i) => s.type === got[i]!.type && s.thinking === got[i]!.thinking && s.signature === got[i]!.signature && s.data === got[i]!.data);
    if (same && blocks[0]!.type !== 'tool_use') return undefined;
    const reason = `messages.${index}.content.0: the thinking blocks of the last assistant turn of a tool loop must be passed back unchanged`;
    this.thinkingRefusals.push(reason);
    return reason;
  }

  private async stream(res: ServerResponse, request: FakeRequest, turn: FakeTurn) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', 'request-id': `req_fake_${this.requests.length}` });
    const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    const wait = () => (turn.deltaDelayMs ? new Promise((r) => setTimeout(r, turn.deltaDelayMs)) : Promise.resolve());
    const simulated = this.cache?.account(request.body);
    const inputTokens = turn.usage?.input_tokens ?? simulated?.input_tokens ?? Math.ceil(JSON.stringify(request.body.messages).length / 4);
    const cacheRead = turn.usage?.cache_read_input_tokens ?? simulated?.cache_read_input_tokens ?? 0;
    const cacheCreation = turn.usage?.cache_creation_input_tokens ?? simulated?.cache_creation_input_tokens ?? 0;
    const chunks = typeof turn.text === 'string' ? turn.text.match(/\S+\s*/g) ?? [turn.text] : turn.text ?? [];
    const id = `msg_fake_${this.requests.length}`;
    send('message_start', {
      type: 'message_start',
      message: {
        id,
        type: 'message',
        role: 'assistant',
        model: request.body.model,
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: {
          input_tokens: inputTokens,
          output_tokens: 1,
          cache_read_input_tokens: cacheRead,
          cache_creation_input_tokens: cacheCreation,
        },
      },
    });
    send('ping', { type: 'ping' });
    let index = 0;
    let outputChars = 0;
    const thinkingBlocks: { type: string; thinking?: string; signature?: string; data?: string }[] = [];
    if (thinkingOn(request)) {
      if (turn.thinking !== undefined) {
        const signature = `sig_${Buffer.from(`${this.requests.length}:${turn.thinking}`).toString('base64url').slice(0, 40)}`;
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'thinking', thinking: '', signature: '' } });
        for (const piece of turn.thinking.match(/\S+\s*/g) ?? [turn.thinking]) {
          await wait();
          if (res.destroyed) return;
          send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'thinking_delta', thinking: piece } });
        }
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'signature_delta', signature } });
        send('content_block_stop', { type: 'content_block_stop', index });
        thinkingBlocks.push({ type: 'thinking', thinking: turn.thinking, signature });
        outputChars += turn.thinking.length;
        index++;
      }
      if (turn.redactedThinking !== undefined) {
        send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'redacted_thinking', data: turn.redactedThinking } });
        send('content_block_stop', { type: 'content_block_stop', index });
        thinkingBlocks.push({ type: 'redacted_thinking', data: turn.redactedThinking });
        index++;
      }
    }
    for (const search of turn.webSearches ?? []) {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'server_tool_use', id: search.id, name: 'web_search', input: {} } });
      send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: JSON.stringify({ query: search.query }) } });
      send('content_block_stop', { type: 'content_block_stop', index });
      index++;
      const content = Array.isArray(search.results)
        ? search.results.map((r) => ({ type: 'web_search_result', title: r.title, url: r.url, encrypted_content: 'ZmFrZQ==', page_age: null }))
        : { type: 'web_search_tool_result_error', error_code: search.results.error_code };
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'web_search_tool_result', tool_use_id: search.id, content } });
      send('content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    if (chunks.length) {
      send('content_block_start', { type: 'content_block_start', index, content_block: { type: 'text', text: '' } });
      for (const [n, chunk] of chunks.entries()) {
        if (n === turn.stallAfterChunks) return; // stalled: the response stays open
        if (turn.failAfterChunks !== undefined && n === turn.failAfterChunks) {
          send('error', { type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } });
          res.end();
          return;
        }
        await wait();
        if (res.destroyed) return;
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'text_delta', text: chunk } });
        this.onDelta?.(performance.now(), chunk);
        outputChars += chunk.length;
      }
      send('content_block_stop', { type: 'content_block_stop', index });
      index++;
    }
    // A stall is a stream that stays open and says nothing more, until the client gives up.
    if (turn.stallAfterChunks !== undefined && turn.stallAfterChunks >= chunks.length) return;
    for (const [n, call] of (turn.toolCalls ?? []).entries()) {
      const json = JSON.stringify(call.input);
      const callId = call.id ?? `toolu_fake_${this.requests.length}_${n}`;
      if (thinkingBlocks.length) this.thinkingSent.set(callId, thinkingBlocks);
      send('content_block_start', {
        type: 'content_block_start',
        index,
        content_block: { type: 'tool_use', id: callId, name: call.name, input: {} },
      });
      // Split the JSON (in two by default) to exercise input_json_delta assembly.
      const size = Math.ceil(json.length / (turn.inputChunks ?? 2));
      for (let at = 0; at < json.length; at += size) {
        if (turn.inputDelayMs) await new Promise((r) => setTimeout(r, turn.inputDelayMs));
        if (res.destroyed) return;
        send('content_block_delta', { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: json.slice(at, at + size) } });
      }
      send('content_block_stop', { type: 'content_block_stop', index });
      outputChars += json.length;
      index++;
    }
    const stopReason = turn.stopReason ?? (turn.toolCalls?.length ? 'tool_use' : 'end_turn');
    const outputTokens = turn.usage?.output_tokens ?? Math.max(1, (this.cache ?? DEFAULT_RULE).tokensFor(outputChars));
    send('message_delta', {
      type: 'message_delta',
      delta: { stop_reason: stopReason, stop_sequence: null },
      usage: { output_tokens: outputTokens },
    });
    send('message_stop', { type: 'message_stop' });
    if (this.cache) {
      this.bills.push(
        billOf(request.body.model, {
          input_tokens: inputTokens,
          cache_read_input_tokens: cacheRead,
          cache_creation_input_tokens: cacheCreation,
          output_tokens: outputTokens,
        }),
      );
    }
    res.end(() => this.onResponseEnd?.(request, performance.now()));
  }
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ type: 'error', error: { type, message } }));
}

/** Whether a request asks for thinking: with a budget (`enabled`), or letting the model decide (`adaptive`). */
const thinkingOn = (request: FakeRequest) => request.body.thinking?.type === 'enabled' || request.body.thinking?.type === 'adaptive';

const userBlocks = (request: FakeRequest) =>
  request.body.messages.filter((m) => m.role === 'user' && Array.isArray(m.content)).flatMap((m) => m.content as Record<string, unknown>[]);

const MEDIA_SIGNATURES: Record<string, (b: Buffer) => boolean> = {
  'image/png': (b) => b.subarray(0, 4).toString('latin1') === '\x89PNG',
  'image/jpeg': (b) => b[0] === 0xff && b[1] === 0xd8,
  'image/gif': (b) => b.subarray(0, 4).toString('latin1') === 'GIF8',
  'image/webp': (b) => b.subarray(8, 12).toString('latin1') === 'WEBP',
  'application/pdf': (b) => b.subarray(0, 5).toString('latin1') === '%PDF-',
};

/** As the API refuses them: an image or document block whose base64 is not its media type, or an image over 5 MB. */
function badMedia(request: FakeRequest): string | undefined {
  for (const block of userBlocks(request)) {
    if (block.type !== 'image' && block.type !== 'document') continue;
    const source = block.source as { type?: string; media_type?: string; data?: string } | undefined;
    if (source?.type !== 'base64' || typeof source.data !== 'string' || !source.media_type) return `${block.type}.source: the fake takes base64 sources only`;
    const bytes = Buffer.from(source.data, 'base64');
    const matches = MEDIA_SIGNATURES[source.media_type];
    if (!matches || (block.type === 'image') === (source.media_type === 'application/pdf')) return `${block.type}.source.media_type: ${source.media_type} is not supported here`;
    if (!matches(bytes)) return `${block.type}.source: the data is not ${source.media_type}`;
    if (block.type === 'image' && bytes.byteLength > 5 * 1024 * 1024) return 'image exceeds 5 MB maximum';
  }
  return undefined;
}
