import { Hono } from 'hono';
import * as z from 'zod';
import { collectRun } from '@zero/runtime/sessions/collect-run';
import { editMessage } from '@zero/runtime/sessions/edit-message';
import { MAX_MESSAGE_CHARS, chatResultSchema, streamEventSchema } from '@zero/agent/wire';
import type { ChatRun } from '@zero/runtime/sessions/start-chat';
import type { Context } from 'hono';
import { describe, json, param } from '../declare';
import type { AppDeps, Env } from '../env';
import { streamEvents } from '../sse';

const editParams = z.object({ id: z.string(), seq: z.coerce.number().int().positive() });
const editBody = z.strictObject({ text: z.string().min(1).max(MAX_MESSAGE_CHARS), stream: z.boolean().optional() });
const regenerateBody = z.strictObject({ stream: z.boolean().optional() });

/** The branch's run, as `POST /chat` answers: SSE with `stream`, else one JSON body. */
async function answer(c: Context<Env>, run: ChatRun, stream: boolean | undefined) {
  c.set('sessionId', run.session.session_id);
  c.set('runId', run.runId);
  if (stream) return streamEvents(c, (signal) => run.events(signal), { finished: run.finished });
  const result = await collectRun(run);
  await run.finished;
  return c.json(result);
}

/** Edit a past message, regenerate the last answer: the session branches in place (see docs/sessions-steering.md). */
export function sessionEditRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post(
    '/sessions/:id/messages/:seq/edit',
    describe({ summary: "Edit a past message (its author or an owner): the conversation branches there and the new message is answered; the earlier branch stays readable", responses: { 200: chatResultSchema }, events: streamEventSchema }),
    param(editParams),
    json(editBody),
    async (c) => {
      const { id, seq } = c.req.valid('param');
      const { text, stream } = c.req.valid('json');
      return answer(c, await editMessage(deps, c.get('user'), id, { seq, text }, { deadline: c.get('deadline') }), stream);
    },
  );

  app.post(
    '/sessions/:id/regenerate',
    describe({ summary: "Answer the last message again (its author or an owner); the earlier answer stays readable as a branch", responses: { 200: chatResultSchema }, events: streamEventSchema }),
    json(regenerateBody, { optional: true }),
    async (c) => answer(c, await editMessage(deps, c.get('user'), c.req.param('id'), {}, { deadline: c.get('deadline') }), c.req.valid('json')?.stream),
  );

  return app;
}
