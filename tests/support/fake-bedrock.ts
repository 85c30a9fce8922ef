import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { FakeAnthropic } from './fake-anthropic';

export interface FakeBedrockRequest {
  /** The model id from the path, decoded. */
  modelId: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Record<string, unknown>;
}

const codec = new EventStreamCodec(
  (bytes) => new TextDecoder().decode(bytes),
  (text) => new TextEncoder().encode(text),
);
const header = (value: string) => ({ type: 'string' as const, value });

/**
 * A fake Amazon Bedrock runtime on loopback serving `POST /model/{modelId}/invoke-with-response-stream`
 * in the AWS event-stream framing: each Messages API stream event is a `chunk` frame whose JSON body
 * carries the event's bytes in base64, a mid-stream `error` event an `exception` frame
 * (`modelStreamErrorException`), an HTTP error Bedrock's JSON error with `x-amzn-errortype`.
 * The answers come from a FakeAnthropic, so one script serves both wire protocols: the request
 * is passed to it with the model from the path, and its stream re-framed.
 */
export class FakeBedrock {
  readonly requests: FakeBedrockRequest[] = [];
  private server?: Server;
  url = '';

  constructor(private readonly model: FakeAnthropic) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res).catch(() => res.destroy()));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  reset(): void {
    this.requests.length = 0;
  }

  private async handle(req: IncomingMessage, res: ServerResponse) {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const match = /^\/model\/([^/]+)\/invoke-with-response-stream$/.exec(req.url ?? '');
    if (req.method !== 'POST' || !match) return sendError(res, 404, 'UnknownOperationException', `no operation ${req.method} ${req.url}`);
    if (!String(req.headers.authorization ?? '').startsWith('AWS4-HMAC-SHA256 ')) return sendError(res, 403, 'AccessDeniedException', 'the request is not signed with SigV4');
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const modelId = decodeURIComponent(match[1]!);
    this.requests.push({ modelId, path: req.url!, headers: req.headers, body });

    const { anthropic_version: _version, anthropic_beta: _beta, ...rest } = body;
    const controller = new AbortController();
    res.on('close', () => controller.abort());
    const answer = await fetch(`${this.model.url}/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-fake-bedrock-model': modelId },
      body: JSON.stringify({ ...rest, model: modelId, stream: true }),
      signal: controller.signal,
    });
    if (!answer.ok) {
      const error = (await answer.json()) as { error: { type: string; message: string } };
      const retryAfter = answer.headers.get('retry-after');
      const type = answer.status === 429 ? 'ThrottlingException' : answer.status >= 500 ? 'ServiceUnavailableException' : 'ValidationException';
      return sendError(res, answer.status === 529 ? 503 : answer.status, type, error.error.message, retryAfter ? { 'retry-after': retryAfter } : {});
    }
    res.writeHead(200, { 'content-type': 'application/vnd.amazon.eventstream', 'x-amzn-bedrock-content-type': 'application/json' });
    const events = answer.body!.pipeThrough(new TextDecoderStream()).pipeThrough(new EventSourceParserStream()).getReader();
    for (;;) {
      const { value: event, done } = await events.read();
      if (done) break;
      if (res.destroyed) return;
      if (event.event === 'error') {
        const message = (JSON.parse(event.data) as { error: { message: string } }).error.message;
        res.write(frame({ ':message-type': header('exception'), ':exception-type': header('modelStreamErrorException'), ':content-type': header('application/json') }, { message }));
        continue;
      }
      const bytes = Buffer.from(event.data).toString('base64');
      res.write(frame({ ':message-type': header('event'), ':event-type': header('chunk'), ':content-type': header('application/json') }, { bytes }));
    }
    res.end();
  }
}

function frame(headers: Parameters<typeof codec.encode>[0]['headers'], body: unknown): Uint8Array {
  return codec.encode({ headers, body: new TextEncoder().encode(JSON.stringify(body)) });
}

function sendError(res: ServerResponse, status: number, type: string, message: string, headers: Record<string, string> = {}) {
  res.writeHead(status, { 'content-type': 'application/json', 'x-amzn-errortype': type, ...headers });
  res.end(JSON.stringify({ message }));
}
