import { Hono } from 'hono';
import { collectRun, startChat, tooLarge } from '@zero/core';
import { MAX_MESSAGE_CHARS, chatRequestSchema, chatResultSchema, streamEventSchema } from '@zero/core/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';
import { streamEvents } from '../sse';

/** A message over the limit is refused with 413 whatever else is wrong with the body. */
function messageSize(body: unknown) {
  const message = (body as { message?: unknown } | null)?.message;
  if (typeof message === 'string' && message.length > MAX_MESSAGE_CHARS) {
    throw tooLarge(`message is ${message.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, 'message');
  }
}

/** `POST /chat`: Zero's chat request, answered as SSE or, without `stream`, as one JSON body. */
export function chatRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  app.post(
    '/chat',
    describe({ summary: 'Send a message: the run streams as SSE (`stream: true`) or answers as one JSON body', responses: { 200: chatResultSchema }, events: streamEventSchema }),
    json(chatRequestSchema, { guard: messageSize }),
    async (c) => {
      const body = c.req.valid('json');
      const run = await startChat(deps, body, c.get('user'), { deadline: c.get('deadline') });
      if (body.stream) return streamEvents(c, (signal) => run.events(signal), { finished: run.finished });
      const result = await collectRun(run);
      await run.finished;
      return c.json(result);
    },
  );
  return app;
}
