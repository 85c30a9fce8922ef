import { Hono } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import { MAX_BODY_BYTES, MAX_MESSAGE_CHARS, chatRequestSchema, collectRun, invalidRequest, startChat, tooLarge } from '@zero/core';
import { deadlineOf } from '../deadline';
import type { AppDeps, Env } from '../env';
import { streamEvents } from '../sse';
import { readJson } from '../validate';

/** `POST /chat`: Zero's chat request, answered as SSE or, without `stream`, as one JSON body. */
export function chatRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  app.post(
    '/chat',
    bodyLimit({
      maxSize: MAX_BODY_BYTES,
      onError: () => {
        throw tooLarge(`request body over ${MAX_BODY_BYTES} bytes`);
      },
    }),
    async (c) => {
      const body = await readJson(c);
      const message = (body as { message?: unknown } | null)?.message;
      if (typeof message === 'string' && message.length > MAX_MESSAGE_CHARS) {
        throw tooLarge(`message is ${message.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, 'message');
      }
      const parsed = chatRequestSchema.safeParse(body);
      if (!parsed.success) throw invalidRequest(parsed.error);
      const run = await startChat(deps, parsed.data, c.get('user'), { deadline: deadlineOf(c) });
      if (parsed.data.stream) return streamEvents(c, (signal) => run.events(signal), { finished: run.finished });
      const result = await collectRun(run);
      await run.finished;
      return c.json(result);
    },
  );
  return app;
}
