import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import type { Context, LambdaFunctionURLEvent } from 'aws-lambda';

/**
 * The streaming contract of Lambda's Node.js runtime, as its runtime interface
 * client provides it on `globalThis.awslambda`: `streamifyResponse` marks a
 * handler as `(event, responseStream, context)`, and `HttpResponseStream.from`
 * makes the first write a JSON prelude (status, headers, cookies) followed by
 * eight NUL bytes, which the function URL turns into the HTTP response head.
 */
const STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const HTTP_INTEGRATION = 'application/vnd.awslambda.http-integration-response';

type StreamingHandler = (event: unknown, responseStream: ResponseStream, context: Context) => Promise<unknown>;

/** The writable a streaming handler gets: bytes go to the Runtime API as they are written. */
export class ResponseStream extends Writable {
  contentType = 'application/octet-stream';
  onBeforeFirstWrite?: (write: (chunk: string | Uint8Array) => void) => void;
  private started = false;

  constructor(private readonly sink: (chunk: Buffer) => void) {
    super();
  }

  setContentType(type: string) {
    this.contentType = type;
  }

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void) {
    if (!this.started) {
      this.started = true;
      this.onBeforeFirstWrite?.((c) => this.sink(Buffer.from(c)));
    }
    this.sink(chunk);
    callback();
  }
}

export function installAwsLambdaGlobal() {
  (globalThis as { awslambda?: unknown }).awslambda = {
    streamifyResponse(handler: StreamingHandler) {
      return Object.assign(handler, { [STREAMING]: 'response' });
    },
    HttpResponseStream: {
      from(stream: ResponseStream, prelude: { statusCode?: number; headers?: Record<string, string>; cookies?: string[] }) {
        stream.setContentType(HTTP_INTEGRATION);
        stream.onBeforeFirstWrite = (write) => {
          write(JSON.stringify(prelude));
          write(new Uint8Array(8));
        };
        return stream;
      },
    },
  };
}

/** One body write of the function, as the function URL received it. */
export interface BodyWrite {
  bytes: Buffer;
  /** performance.now() when the handler wrote it. */
  at: number;
}

export interface Invocation {
  event: LambdaFunctionURLEvent;
  writes: BodyWrite[];
}

export interface FunctionUrl {
  url: string;
  invocations: Invocation[];
  close(): Promise<void>;
}

/**
 * A loopback stand-in for a Lambda function URL in front of a streaming
 * handler: each HTTP request becomes a payload-v2 event, the handler runs
 * with a response stream and a context, and the prelude and body it writes
 * become the HTTP response, relayed as written.
 */
export async function serveFunctionUrl(handler: unknown, options: { timeoutMs?: number; functionName?: string } = {}): Promise<FunctionUrl> {
  if ((handler as Record<symbol, unknown>)[STREAMING] !== 'response') throw new Error('handler is not wrapped by awslambda.streamifyResponse');
  const invocations: Invocation[] = [];
  const server: Server = createServer((req, res) => {
    void invoke(handler as StreamingHandler, req, res, invocations, options).catch((error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ Message: `function error: ${String(error)}` }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    invocations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function invoke(
  handler: StreamingHandler,
  req: IncomingMessage,
  res: ServerResponse,
  invocations: Invocation[],
  options: { timeoutMs?: number; functionName?: string },
) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const event = functionUrlEvent(req, Buffer.concat(chunks));
  const invocation: Invocation = { event, writes: [] };
  invocations.push(invocation);

  // Until the prelude's eight NUL bytes have arrived, bytes are response metadata.
  let head: Buffer | undefined = Buffer.alloc(0);
  const stream = new ResponseStream((chunk) => {
    if (stream.contentType !== HTTP_INTEGRATION) {
      // A handler that never called HttpResponseStream.from: the function URL answers 200 with the raw bytes.
      if (!res.headersSent) res.writeHead(200, { 'content-type': stream.contentType });
      return relay(chunk);
    }
    if (head === undefined) return relay(chunk);
    head = Buffer.concat([head, chunk]);
    const end = head.indexOf(Buffer.alloc(8));
    if (end === -1) return;
    const prelude = JSON.parse(head.subarray(0, end).toString('utf8')) as { statusCode?: number; headers?: Record<string, string>; cookies?: string[] };
    const rest = head.subarray(end + 8);
    head = undefined;
    res.writeHead(prelude.statusCode ?? 200, { ...prelude.headers, ...(prelude.cookies?.length ? { 'set-cookie': prelude.cookies } : {}) });
    if (rest.length) relay(rest);
  });
  function relay(bytes: Buffer) {
    invocation.writes.push({ bytes, at: performance.now() });
    res.write(bytes);
  }

  // A client that goes away ends the response stream, as Lambda does: the handler's writes then fail.
  res.on('close', () => {
    if (!stream.writableFinished) stream.destroy(new Error('the client disconnected'));
  });
  const deadline = Date.now() + (options.timeoutMs ?? 900_000);
  const context = lambdaContext(options.functionName ?? 'zero-test-ApiFunction', deadline);
  await handler(event, stream, context);
  await new Promise<void>((resolve) => {
    if (stream.writableFinished || stream.destroyed) return resolve();
    stream.once('finish', resolve);
    stream.once('close', resolve);
  });
  res.end();
}

/** The payload-v2 event a function URL sends for an HTTP request. */
function functionUrlEvent(req: IncomingMessage, body: Buffer): LambdaFunctionURLEvent {
  const url = new URL(req.url ?? '/', 'https://function.url');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (name === 'cookie' || value === undefined) continue;
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  const urlId = 'abcdefghijklmnopqrstuvwxyz012345';
  headers.host = `${urlId}.lambda-url.us-east-1.on.aws`;
  headers['x-forwarded-proto'] = 'https';
  headers['x-forwarded-port'] = '443';
  headers['x-forwarded-for'] = '127.0.0.1';
  headers['x-amzn-trace-id'] = `Root=1-${Math.floor(Date.now() / 1000).toString(16)}-${randomUUID().replaceAll('-', '').slice(0, 24)}`;
  const query = url.searchParams.size ? Object.fromEntries(url.searchParams) : undefined;
  const text = /^(text\/|application\/(json|x-www-form-urlencoded|xml))/.test(req.headers['content-type'] ?? '');
  const now = new Date();
  return {
    version: '2.0',
    routeKey: '$default',
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(req.headers.cookie ? { cookies: req.headers.cookie.split(/;\s*/) } : {}),
    headers,
    ...(query ? { queryStringParameters: query } : {}),
    requestContext: {
      accountId: 'anonymous',
      apiId: urlId,
      domainName: headers.host,
      domainPrefix: urlId,
      http: {
        method: req.method ?? 'GET',
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: '127.0.0.1',
        userAgent: req.headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey: '$default',
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: text ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !text,
  } as LambdaFunctionURLEvent;
}

function lambdaContext(functionName: string, deadline: number): Context {
  const requestId = randomUUID();
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: `2026/11/22/[$LATEST]${requestId.replaceAll('-', '')}`,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

const repoRoot = join(import.meta.dirname, '..', '..');

/**
 * Lambda's Node runtime loop around functions/sandbox.ts, as a module for `node -e`: GET the next
 * invocation from AWS_LAMBDA_RUNTIME_API, run the handler, POST its response; ends when the API has no more work.
 */
export const sandboxRuntimeLoop = `import { handler } from ${JSON.stringify(pathToFileURL(join(repoRoot, 'functions/sandbox.ts')).href)};
const api = 'http://' + process.env.AWS_LAMBDA_RUNTIME_API + '/2018-06-01/runtime/invocation/';
for (;;) {
  const next = await fetch(api + 'next');
  if (next.status !== 200) break;
  const id = next.headers.get('lambda-runtime-aws-request-id');
  const result = await handler(await next.json());
  await fetch(api + id + '/response', { method: 'POST', body: JSON.stringify(result) });
}`;

/** Lambda runs a function as an unprivileged user (sbx_user1051): where the tests run as root, the runtime drops to 65534 with no capabilities. */
export const asLambdaUser = (): string[] =>
  process.getuid?.() === 0 ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups', '--inh-caps=-all', '--bounding-set=-all'] : [];
