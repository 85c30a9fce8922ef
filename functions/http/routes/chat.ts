import { Hono } from 'hono';
import { collectRun } from '@zero/runtime/sessions/collect-run';
import { planPrompt } from '@zero/agent/plan/prompt';
import { startChat } from '@zero/runtime/sessions/start-chat';
import { tooLarge } from '@zero/agent/errors';
import { ATTACHMENTS_BODY_HINT, MAX_BODY_BYTES, MAX_BODY_WITH_ATTACHMENTS_BYTES, MAX_MESSAGE_CHARS, chatRequestSchema, chatResultSchema, streamEventSchema, type ChatRequest, type ChatRequestBody } from '@zero/agent/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';
import { streamEvents } from '../sse';

/**
 * A message over the limit is refused with 413 whatever else is wrong with the body; so is a body
 * over `MAX_BODY_BYTES` without attachments (only attachments earn the larger body limit).
 */
function messageSize(body: unknown) {
  const { message, attachments } = (body as { message?: unknown; attachments?: unknown } | null) ?? {};
  if (!(Array.isArray(attachments) && attachments.length) && Buffer.byteLength(JSON.stringify(body)) > MAX_BODY_BYTES) {
    throw tooLarge(`request body over ${MAX_BODY_BYTES} bytes; only a message with attachments may be larger (up to ${MAX_BODY_WITH_ATTACHMENTS_BYTES} bytes)`);
  }
  if (typeof message === 'string' && message.length > MAX_MESSAGE_CHARS) {
    throw tooLarge(`message is ${message.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, 'message');
  }
}

/**
 * The request a session takes: the message, or the message a plan becomes (its
 * agent and project used where the request names none), held to the same limit.
 */
function messageOf({ plan, message, ...rest }: ChatRequestBody): ChatRequest {
  if (!plan) return { ...rest, message: message! };
  const prompt = planPrompt(plan);
  if (prompt.length > MAX_MESSAGE_CHARS) throw tooLarge(`the plan makes a message of ${prompt.length} characters; the limit is ${MAX_MESSAGE_CHARS}`, 'plan');
  return { ...rest, agent_id: rest.agent_id ?? plan.agent, project_id: rest.project_id ?? plan.project, message: prompt, ...((plan.steps ?? plan.instructions)?.length ? { plan_steps: plan.steps ?? plan.instructions } : {}) };
}

/** `POST /chat`: Zero's chat request, answered as SSE or, without `stream`, as one JSON body. */
export function chatRoutes(deps: AppDeps) {
  const app = new Hono<Env>();
  app.post(
    '/chat',
    describe({ summary: 'Send a message: the run streams as SSE (`stream: true`) or answers as one JSON body', responses: { 200: chatResultSchema }, events: streamEventSchema }),
    json(chatRequestSchema, { guard: messageSize, maxBytes: MAX_BODY_WITH_ATTACHMENTS_BYTES, hint: ATTACHMENTS_BODY_HINT }),
    async (c) => {
      const body = messageOf(c.req.valid('json'));
      const run = await startChat(deps, body, c.get('user'), { deadline: c.get('deadline') });
      c.set('sessionId', run.session.session_id);
      c.set('runId', run.runId);
      if (body.stream) return streamEvents(c, (signal) => run.events(signal), { finished: run.finished });
      const result = await collectRun(run);
      await run.finished;
      return c.json(result);
    },
  );
  return app;
}
