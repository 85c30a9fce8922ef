import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { randomUUID } from 'node:crypto';
import type { AddressInfo } from 'node:net';
import type { FakeTurn } from './fake-anthropic';

export interface FakeOpenAIRequest {
  headers: IncomingMessage['headers'];
  body: {
    model: string;
    messages: { role: string; content: unknown; tool_calls?: { id: string; function: { name: string; arguments: string } }[]; tool_call_id?: string }[];
    tools?: { type: string; function: { name: string; description?: string; parameters: unknown } }[];
    stream?: boolean;
    stream_options?: { include_usage?: boolean };
    max_tokens?: number;
  };
  at: number;
}

/**
 * A fake OpenAI Chat Completions API on loopback (`POST /v1/chat/completions`), speaking the
 * streaming protocol as OpenAI, vLLM and Ollama do: `chat.completion.chunk`s with content
 * deltas, `tool_calls` deltas (each call's id and name first, then its arguments in pieces,
 * the calls of one turn interleaved by index), a finish_reason, a usage chunk when
 * `stream_options.include_usage` asks, and `data: [DONE]`. Scripted with the same turns as
 * FakeAnthropic, so one scenario runs on both: `failAfterChunks` sends an error chunk and
 * ends the stream, `status` answers with an HTTP error (and `retry-after`).
 */
export class FakeOpenAI {
  readonly requests: (FakeOpenAIRequest & { body: FakeOpenAIRequest['body'] })[] = [];
  private queue: FakeTurn[] = [];
  private responder?: (request: FakeOpenAIRequest, index: number) => FakeTurn;
  private server?: Server;
  private readonly open = new Set<ServerResponse>();
  /** The key requests must bear (`Authorization: Bearer …`); none: any. */
  requiredKey?: string;
  /** Set by `issueCopilotTokens`: the GitHub token the exchange takes, and what it issues. */
  private copilot?: { githubToken: string; lifetimeSeconds: number; valid: Set<string> };
  /** The token exchanges, in order: the GitHub token they bore and the Copilot token issued (none when refused). */
  readonly exchanges: { authorization: string | undefined; editorVersion: string | undefined; issued?: string }[] = [];
  url = '';
  /** Where Copilot's token exchange is served, once `issueCopilotTokens` turned it on. */
  get tokenUrl(): string {
    return this.url.replace(/\/v1$/, '/copilot_internal/v2/token');
  }

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/v1`;
    return this;
  }

  async stop(): Promise<void> {
    for (const res of this.open) res.destroy();
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  script(...turns: FakeTurn[]): this {
    this.queue.push(...turns);
    return this;
  }

  respondWith(responder: (request: FakeOpenAIRequest, index: number) => FakeTurn): this {
    this.responder = responder;
    return this;
  }

  reset(): void {
    this.queue = [];
    this.responder = undefined;
    this.requests.length = 0;
    this.exchanges.length = 0;
    this.refuseEveryCopilotToken = false;
    this.copilotExchangeBody = undefined;
    if (this.copilot) this.copilot.lifetimeSeconds = 1800;
  }

  /**
   * Speaks GitHub Copilot: `GET /copilot_internal/v2/token` exchanges `githubToken` (`Authorization:
   * token …`) for a Copilot token living `lifetimeSeconds` (`expires_at`, `refresh_in` as GitHub
   * sends them), and chat completions take only a Copilot token issued and not revoked.
   */
  issueCopilotTokens(githubToken: string, lifetimeSeconds = 1800): this {
    this.copilot = { githubToken, lifetimeSeconds, valid: this.copilot?.valid ?? new Set() };
    return this;
  }

  /** Tokens issued later live this long (a lifetime under a minute is stale as soon as it is issued). */
  set copilotTokenLifetime(seconds: number) {
    this.copilot!.lifetimeSeconds = seconds;
  }

  /** Copilot refuses every token, old and new (a seat withdrawn between exchange and call). */
  refuseEveryCopilotToken = false;
  /** The exchange answers 200 with this body instead of a token (a proxy's page, a changed API). */
  copilotExchangeBody?: string;

  /** Copilot stops taking every token issued so far (as when one was revoked): the next call with one gets 401. */
  revokeCopilotTokens(): void {
    this.copilot?.valid.clear();
  }

  get pending(): number {
    return this.queue.length;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (this.copilot && req.method === 'GET' && req.url === '/copilot_internal/v2/token') return this.exchange(req, res);
    if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
      return sendError(res, 404, 'not_found', `the fake serves POST /v1/chat/completions, not ${req.method} ${req.url}`);
    }
    if (this.requiredKey && req.headers.authorization !== `Bearer ${this.requiredKey}`) return sendError(res, 401, 'invalid_api_key', 'Incorrect API key provided');
    if (this.copilot && (this.refuseEveryCopilotToken || !this.copilot.valid.has(req.headers.authorization?.replace(/^Bearer /, '') ?? ''))) {
      this.requests.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: performance.now() });
      return sendError(res, 401, 'unauthorized', 'unauthorized: token expired');
    }
    const request: FakeOpenAIRequest = { headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')), at: performance.now() };
    const index = this.requests.push(request) - 1;
    const turn = this.queue.shift() ?? this.responder?.(request, index);
    if (!turn) return sendError(res, 500, 'server_error', 'the fake OpenAI server has no scripted response left');
    if (turn.status) {
      const headers: Record<string, string> = turn.retryAfterSeconds !== undefined ? { 'retry-after': String(turn.retryAfterSeconds) } : {};
      return sendError(res, turn.status, turn.status === 429 ? 'rate_limit_exceeded' : 'server_error', `scripted ${turn.status}`, headers);
    }
    this.open.add(res);
    res.on('close', () => this.open.delete(res));
    if (turn.hang) return;
    await this.stream(res, request, turn);
  }

  private exchange(req: IncomingMessage, res: ServerResponse) {
    const copilot = this.copilot!;
    const exchange: (typeof this.exchanges)[number] = { authorization: req.headers.authorization, editorVersion: req.headers['editor-version'] as string | undefined };
    this.exchanges.push(exchange);
    if (req.headers.authorization !== `token ${copilot.githubToken}`) return sendError(res, 401, 'unauthorized', 'Bad credentials');
    if (this.copilotExchangeBody !== undefined) {
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(this.copilotExchangeBody);
    }
    const now = Math.floor(Date.now() / 1000);
    const token = `tid=fake-${this.exchanges.length};exp=${now + copilot.lifetimeSeconds};sku=copilot_for_business;8kp=1:${randomUUID()}`;
    copilot.valid.add(token);
    exchange.issued = token;
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ token, expires_at: now + copilot.lifetimeSeconds, refresh_in: Math.max(1, copilot.lifetimeSeconds - 300), endpoints: { api: this.url.replace(/\/v1$/, '') } }));
  }

  private async stream(res: ServerResponse, request: FakeOpenAIRequest, turn: FakeTurn) {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const id = `chatcmpl-fake-${this.requests.length}`;
    const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: request.body.model };
    const send = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    const delta = (d: unknown, finish: string | null = null) => send({ ...base, choices: [{ index: 0, delta: d, finish_reason: finish }] });
    const wait = (ms = turn.deltaDelayMs) => (ms ? new Promise((r) => setTimeout(r, ms)) : Promise.resolve());
    const chunks = typeof turn.text === 'string' ? (turn.text.match(/\S+\s*/g) ?? [turn.text]) : (turn.text ?? []);
    let outputChars = 0;
    delta({ role: 'assistant', content: '' });
    for (const [n, chunk] of chunks.entries()) {
      if (n === turn.stallAfterChunks) return;
      if (turn.failAfterChunks !== undefined && n === turn.failAfterChunks) {
        send({ error: { message: 'The server is overloaded', type: 'server_error' } });
        res.end();
        return;
      }
      await wait();
      if (res.destroyed) return;
      delta({ content: chunk });
      outputChars += chunk.length;
    }
    if (turn.stallAfterChunks !== undefined && turn.stallAfterChunks >= chunks.length) return;
    const calls = (turn.toolCalls ?? []).map((call, n) => ({ id: call.id ?? `call_fake_${this.requests.length}_${n}`, name: call.name, json: JSON.stringify(call.input) }));
    for (const [n, call] of calls.entries()) delta({ tool_calls: [{ index: n, id: call.id, type: 'function', function: { name: call.name, arguments: '' } }] });
    // The calls' arguments, piece by piece, interleaved: servers stream parallel calls side by side.
    const pieces = turn.inputChunks ?? 2;
    for (let piece = 0; piece < pieces; piece++) {
      for (const [n, call] of calls.entries()) {
        const size = Math.ceil(call.json.length / pieces);
        const part = call.json.slice(piece * size, (piece + 1) * size);
        if (!part) continue;
        await wait(turn.inputDelayMs);
        if (res.destroyed) return;
        delta({ tool_calls: [{ index: n, function: { arguments: part } }] });
        outputChars += part.length;
      }
    }
    const stop = turn.stopReason ?? (calls.length ? 'tool_use' : 'end_turn');
    const finish = { end_turn: 'stop', tool_use: 'tool_calls', max_tokens: 'length', pause_turn: 'stop' }[stop];
    delta({}, finish);
    if (request.body.stream_options?.include_usage) {
      const cached = turn.usage?.cache_read_input_tokens ?? 0;
      const input = turn.usage?.input_tokens ?? Math.ceil(JSON.stringify(request.body.messages).length / 4);
      const output = turn.usage?.output_tokens ?? Math.max(1, Math.ceil(outputChars / 4));
      send({ ...base, choices: [], usage: { prompt_tokens: input + cached, completion_tokens: output, total_tokens: input + cached + output, prompt_tokens_details: { cached_tokens: cached } } });
    }
    res.write('data: [DONE]\n\n');
    res.end();
  }
}

function sendError(res: ServerResponse, status: number, code: string, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify({ error: { message, type: code, code } }));
}
