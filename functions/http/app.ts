import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { streamSSE } from 'hono/streaming';
import {
  MAX_BODY_BYTES,
  MAX_MESSAGE_CHARS,
  ZeroError,
  chatRequestSchema,
  invalidRequest,
  startChat,
  type ChatDeps,
  type ChatRun,
  type StreamEvent,
} from '@zero/core';
import { errorResponse } from './errors';

export type AppDeps = ChatDeps;

/** The one Hono app served by Lambda (`streamHandle`) and by Node (`@hono/node-server`). */
export function createApp(deps: AppDeps) {
  const app = new Hono();
  app.onError((error, c) => errorResponse(error, c, deps.secrets));
  app.notFound((c) => c.json({ error: { code: 'not_found', message: `no route for ${c.req.method} ${c.req.path}` } }, 404));

  app.get('/health', (c) => c.json({ ok: true }));

  const api = new Hono();
  api.post(
    '/chat',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw new ZeroError('payload_too_large', `request body over ${MAX_BODY_BYTES} bytes`, 413);
      },
    }),
    async (c) => {
      const body = await readJson(c);
      const message = (body as { message?: unknown } | null)?.message;
      if (typeof message === 'string' && message.length > MAX_MESSAGE_CHARS) {
        throw new ZeroError('payload_too_large', `message is ${message.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, 413, {
          field: 'message',
        });
      }
      const parsed = chatRequestSchema.safeParse(body);
      if (!parsed.success) throw invalidRequest(parsed.error);
      const run = await startChat(deps, parsed.data);
      return parsed.data.stream ? streamRun(c, run) : c.json(await collectRun(run));
    },
  );

  api.get('/sessions/:id', async (c) => {
    const id = c.req.param('id');
    const session = await deps.sessions.requireSession(id);
    const history = await deps.sessions.readLog(id);
    return c.json({ session, history });
  });

  api.get('/agents', async (c) => {
    const { agents, errors } = await deps.catalog.load();
    const list = [...agents.values()]
      .sort((a, b) => a.id.localeCompare(b.id))
      .map((a) => ({
        id: a.id,
        name: a.name,
        description: a.description,
        model: a.model ?? deps.defaultModel,
        tools: a.tools,
        delegates_to: a.delegation.map((d) => d.agent_id),
        default_voice: a.default_voice,
      }));
    return c.json({ agents: list, errors });
  });

  app.route('/api/v2', api);
  return app;
}

async function readJson(c: Context): Promise<unknown> {
  const text = await c.req.text();
  try {
    return JSON.parse(text);
  } catch {
    throw new ZeroError('invalid_json', 'request body is not valid JSON', 400, { field: 'body' });
  }
}

/**
 * Lambda function URLs hold back a response's first small writes (they flush
 * after roughly 15 KB), so a client could wait for its first event until the
 * model has said a lot. An SSE comment of this size, written first, goes out
 * at once; EventSource parsers ignore comments.
 */
export const FIRST_FLUSH_PADDING = `:${' '.repeat(16 * 1024)}\n\n`;

/** Zero's SSE protocol: one JSON event per `data:` line, each with an `id:`. */
function streamRun(c: Context, run: ChatRun) {
  return streamSSE(c, async (stream) => {
    await stream.write(FIRST_FLUSH_PADDING);
    for await (const { event_id, ...event } of run.events.subscribe()) {
      if (stream.aborted || stream.closed) break;
      await stream.writeSSE({ id: event_id, data: JSON.stringify(event) });
    }
    // The run goes on without a reader; keep the invocation alive until it is persisted.
    await run.outcome;
  });
}

/** The non-streaming answer: the run's text, tool calls and outcome in one JSON body. */
async function collectRun(run: ChatRun) {
  // Text of a step that is retried is dropped; a step's text is final once its tools run.
  let text = '';
  let stepText = '';
  const toolCalls: { id: string; name: string; input: unknown; result?: string; is_error?: boolean }[] = [];
  let error: Extract<StreamEvent, { type: 'error' }> | undefined;
  let done: Extract<StreamEvent, { type: 'done' }> | undefined;
  for await (const event of run.events.subscribe()) {
    if (event.type === 'text') stepText += event.delta;
    else if (event.type === 'retry') stepText = '';
    else if (event.type === 'tool_call') toolCalls.push({ id: event.id, name: event.name, input: event.input });
    else if (event.type === 'tool_result') {
      text += stepText;
      stepText = '';
      const call = toolCalls.find((t) => t.id === event.id);
      if (call) Object.assign(call, { result: event.content, is_error: event.is_error });
    } else if (event.type === 'error') error = event;
    else if (event.type === 'done') done = event;
  }
  text += stepText;
  return {
    session_id: run.session.session_id,
    run_id: run.runId,
    status: done?.status ?? 'error',
    text,
    tool_calls: toolCalls,
    usage: done?.usage,
    ...(error ? { error: { code: error.code, message: error.message } } : {}),
  };
}
