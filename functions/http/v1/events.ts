import { Hono, type Context } from 'hono';
import * as z from 'zod';
import { cancelWaitingRun } from '@zero/runtime/sessions/cancel-waiting';
import { conflict, invalidField, notFound } from '@zero/agent/errors';
import { decideApprovals } from '@zero/runtime/sessions/decide-approval';
import { formatEventId } from '@zero/agent/events/ids';
import { wakeSession } from '@zero/runtime/sessions/wake-session';
import { stopRun } from '@zero/runtime/sessions/stop-run';
import { truncate } from '@zero/agent/tools/registry';
import { watchSession } from '@zero/runtime/sessions/watch-session';
import type { AuthUser } from '@zero/runtime/auth/authenticator';
import type { IdentifiedEvent } from '@zero/agent/events/recorder';
import type { User } from '@zero/runtime/auth/roles';
import { acceptWorkResult } from '@zero/integrations/environment-store';
import { mayReach } from '@zero/runtime/environments/environment-store';
import { compareManaged, createEventMapper, interruptEventId, managedCursor, parseManagedCursor, readSessionUpdates, type ManagedEvent, type PreviewType } from '@zero/integrations/managed';
import { readSessionRecord, type ManagedSessionRecord } from '@zero/runtime/store/session-record';
import { json, query } from './validate';
import { ATTACHMENTS_BODY_HINT, MAX_BODY_WITH_ATTACHMENTS_BYTES } from '@zero/agent/wire';
import type { Env } from '../env';
import type { V1Deps } from './deps';
import { sseFrame } from '../sse';
import { sendUserMessage, userMessageParams } from './messages';
import { managedSession } from './session-resource';
import { followSessionChanges } from './session-changes';
import { defineOutcome, defineOutcomeParams } from './outcomes';

const textBlocks = z.array(z.looseObject({ type: z.string(), text: z.unknown().optional() }));

/** The events a client sends (`BetaManagedAgentsEventParams`) that Zero takes. */
const sendParams = z.strictObject({
  events: z
    .array(
      z.discriminatedUnion('type', [
        userMessageParams,
        defineOutcomeParams,
        z.strictObject({ type: z.literal('user.interrupt'), session_thread_id: z.string().nullish() }),
        z.strictObject({ type: z.literal('user.tool_confirmation'), tool_use_id: z.string().min(1).max(200), result: z.enum(['allow', 'deny']), deny_message: z.string().max(2000).nullish() }),
        z.strictObject({ type: z.literal('user.custom_tool_result'), custom_tool_use_id: z.string().min(1).max(200), content: textBlocks.optional(), is_error: z.boolean().nullish() }),
        z.strictObject({ type: z.literal('user.tool_result'), tool_use_id: z.string().min(1).max(200), content: textBlocks.optional(), is_error: z.boolean().nullish(), session_thread_id: z.string().nullish() }),
      ]),
    )
    .min(1)
    .max(20),
});

export const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(1000).optional(),
  page: z.string().max(100).optional(),
  order: z.enum(['asc', 'desc']).optional(),
  'types[]': z.union([z.string(), z.array(z.string())]).optional(),
  types: z.union([z.string(), z.array(z.string())]).optional(),
});

const previewType = z.enum(['agent.message', 'agent.thinking']);
/** `GET …/events/stream` (`EventStreamParams`): the SDK sends `event_deltas[]=agent.message`. */
export const streamQuery = z.object({
  'event_deltas[]': z.union([previewType, z.array(previewType)]).optional(),
  event_deltas: z.union([previewType, z.array(previewType)]).optional(),
});

/**
 * Every managed event of the session so far, oldest first: its log through one mapper, and its updates where they were made.
 * `thread`: the delegated run whose thread's events these are (see session-threads.ts); absent: the primary thread's.
 */
export async function loggedEvents(deps: V1Deps, sessionId: string, record: ManagedSessionRecord | undefined, thread?: string): Promise<ManagedEvent[]> {
  const map = createEventMapper(new Set(record?.custom_tools.map((t) => t.name)), undefined, new Set(record?.environment_tools?.map((t) => t.name)), undefined, thread);
  const out: ManagedEvent[] = [];
  for (const batch of await deps.sessions.readEvents(sessionId, 0)) {
    for (const [index, event] of batch.events.entries()) out.push(...map({ ...event, event_id: formatEventId({ seq: batch.seq, index }) } as IdentifiedEvent));
  }
  // The session's updates are the session's: its primary thread shows them.
  if (thread === undefined) out.push(...(await readSessionUpdates(deps.artifacts, sessionId)).values());
  return out.sort(compareManaged);
}

/** `/v1/sessions/:id/events`: what happened, as a list and live; and what a client sends: messages, interrupts, decisions, custom tools' results. */
export function managedEventRoutes(deps: V1Deps) {
  const app = new Hono<Env>();

  app.post('/sessions/:id/events', json(sendParams, { maxBytes: MAX_BODY_WITH_ATTACHMENTS_BYTES, hint: ATTACHMENTS_BODY_HINT }), async (c) => {
    const id = c.req.param('id');
    const events = c.req.valid('json').events;
    // Each event is authorised on its own, all before any is taken: a worker's result (`user.tool_result`)
    // needs the session's self-hosted environment, whatever else the batch holds; every other event an editor of the session.
    const user = c.get('user');
    const forEditor = events.some((e) => e.type !== 'user.tool_result') ? (await managedSession(deps, id, user, 'editor')).record : undefined;
    const forWorker = events.some((e) => e.type === 'user.tool_result') ? (await workerAccess(deps, id, user)).record : undefined;
    const record = forWorker ?? forEditor;
    const environmentTools = new Set(record?.environment_tools?.map((t) => t.name));
    const data: Record<string, unknown>[] = [];
    for (const [i, event] of events.entries()) {
      const field = `events.${i}`;
      const processed_at = new Date().toISOString();
      switch (event.type) {
        case 'user.message':
          data.push(await sendUserMessage(deps, c, id, record, event, field));
          break;
        case 'user.define_outcome':
          data.push(await defineOutcome(deps, c, id, record, event, field));
          break;
        case 'user.interrupt': {
          // The run it stopped shows it in the stream and the list, under this id; with nothing running there is nothing to show.
          const stopped = await interrupt(deps, id);
          data.push({ id: stopped ? interruptEventId(stopped) : `sevt_interrupt_idle_${Date.now()}`, type: event.type, processed_at });
          break;
        }
        case 'user.tool_confirmation': {
          const decided = await answer(deps, c, id, event.tool_use_id, 'decision', field, () => ({ decision: event.result, ...(event.deny_message ? { message: event.deny_message } : {}) }));
          data.push({ id: `sevt_${decided}`, type: event.type, tool_use_id: event.tool_use_id, result: event.result, deny_message: event.deny_message ?? null, processed_at });
          break;
        }
        case 'user.tool_result': {
          const work = record && (await deps.work.findCall(record.environment_id, id, event.tool_use_id));
          if (!work) throw invalidField(`${field}.tool_use_id`, `no call "${event.tool_use_id}" of this session was queued for a self-hosted worker`);
          const result = truncate({ content: textOf(event.content ?? [], `${field}.content`).join('\n\n'), is_error: !!event.is_error }, deps.limits.maxToolOutputChars);
          await acceptWorkResult(deps, work, result);
          data.push({ id: `sevt_${work.id}`, type: event.type, tool_use_id: event.tool_use_id, content: event.content ?? [], is_error: !!event.is_error, processed_at });
          break;
        }
        case 'user.custom_tool_result': {
          // An environment call (`bash`, `write`, …) is its worker's to answer, queued or not yet.
          const workersOnly = (name: string) =>
            conflict(`${field}.custom_tool_use_id: call "${event.custom_tool_use_id}" is of the environment tool "${name}"; only the environment's worker answers it (user.tool_result)`, {
              field: `${field}.custom_tool_use_id`,
            });
          const queued = record && (await deps.work.findCall(record.environment_id, id, event.custom_tool_use_id));
          if (queued) throw workersOnly(queued.tool);
          const content = (event.content ?? []).map((block, j) => {
            if (block.type !== 'text' || typeof block.text !== 'string') throw invalidField(`${field}.content.${j}`, `"${block.type}" blocks are not supported; send text`);
            return block.text;
          });
          const result = truncate({ content: content.join('\n\n'), is_error: !!event.is_error }, deps.limits.maxToolOutputChars);
          const decided = await answer(deps, c, id, event.custom_tool_use_id, 'result', field, (call) => {
            if (environmentTools.has(call.name)) throw workersOnly(call.name);
            return {
              decision: 'allow' as const,
              result: { content: result.content, ...(result.is_error ? { is_error: true } : {}), ...(result.truncated ? { truncated: true } : {}) },
            };
          });
          data.push({ id: `sevt_${decided}`, type: event.type, custom_tool_use_id: event.custom_tool_use_id, content: event.content ?? [], is_error: !!event.is_error, processed_at });
          break;
        }
      }
    }
    return c.json({ data });
  });

  app.get('/sessions/:id/events', query(listQuery), (c) => listManagedEvents(deps, c, c.req.param('id'), c.req.valid('query')));
  app.get('/sessions/:id/events/stream', query(streamQuery), (c) => streamManagedEvents(deps, c, c.req.param('id'), c.req.valid('query')));

  return app;
}

/** `GET …/events` (and a thread's, `thread`: its delegated run): a page of the events so far, filtered by type. */
export async function listManagedEvents(deps: V1Deps, c: Context<Env>, id: string, q: z.infer<typeof listQuery>, thread?: string) {
  const { record } = await managedSession(deps, id, c.get('user'), 'viewer');
  // As every read of a session, at either door: a run its dead holder left goes on.
  await wakeSession(deps, id);
  // The SDK sends `types[]=a&types[]=b`: every value, not the query's first.
  const types = [q['types[]'] === undefined ? [] : (c.req.queries('types[]') ?? []), q.types === undefined ? [] : (c.req.queries('types') ?? [])].flat();
  let events = await loggedEvents(deps, id, record, thread);
  if (types.length) events = events.filter((e) => types.includes(e.event.type));
  const desc = q.order === 'desc';
  if (desc) events.reverse();
  const after = q.page === undefined ? undefined : parseCursor(q.page);
  const rest = after === undefined ? events : events.filter((e) => (desc ? compareManaged(e, after) < 0 : compareManaged(e, after) > 0));
  const page = rest.slice(0, q.limit ?? 100);
  return c.json({ data: page.map((e) => e.event), next_page: page.length < rest.length ? managedCursor(page.at(-1)!) : null });
}

/** `GET …/events/stream` (and a thread's, `thread`: its delegated run): what happens from now on, or after `Last-Event-ID`. */
export async function streamManagedEvents(deps: V1Deps, c: Context<Env>, id: string, q: z.infer<typeof streamQuery>, thread?: string) {
  const previews = new Set<PreviewType>([
    ...(q['event_deltas[]'] === undefined ? [] : [q['event_deltas[]']].flat()),
    ...(q.event_deltas === undefined ? [] : [q.event_deltas].flat()),
  ]);
  const user = c.get('user');
  const { record } = await managedSession(deps, id, user, 'viewer');
  const lastEventId = c.req.header('last-event-id');
  const resumeAfter = lastEventId ? parseCursor(lastEventId, 'Last-Event-ID') : undefined;
  // Without Last-Event-ID the stream shows what happens from now on (the list has the past).
  const from = resumeAfter ?? { position: { seq: await deps.sessions.lastEventSeq(id), index: Number.MAX_SAFE_INTEGER }, k: 0 };
  await wakeSession(deps, id);
  const maxDurationMs = 10 * 60_000;
  // The same caps as Zero's own live view: per user, and per session with all its members together.
  const release = await deps.streams.acquire(user.id, maxDurationMs + 60_000);
  if (!release) throw conflict(`you already have ${deps.streams.perUser} live streams open, the most one user may; close one and retry`);
  const releaseSession = await deps.streams.acquireSession(id, maxDurationMs + 60_000);
  if (!releaseSession) {
    await release();
    throw conflict(`this session already has ${deps.streams.perSession} live streams open, the most one session may; close one and retry`);
  }
  const releaseBoth = () => Promise.all([release(), releaseSession()]).then(() => undefined);
  return followMapped(c, deps, id, user, record, from, releaseBoth, maxDurationMs, previews, thread);
}

/**
 * Streams the session's events mapped, after `from`: the log is replayed through the mapper from its start, so an unfinished message is whole.
 * Its updates (`session.updated`) show as they are made; when the session is deleted the stream says so
 * (`session.status_terminated`, `session.deleted`) and ends.
 */
function followMapped(
  c: Context<Env>,
  deps: V1Deps,
  id: string,
  user: User,
  record: ManagedSessionRecord | undefined,
  from: Cursor,
  release: () => Promise<void>,
  maxDurationMs: number,
  previews: ReadonlySet<PreviewType>,
  thread?: string,
) {
  const map = createEventMapper(new Set(record?.custom_tools.map((t) => t.name)), undefined, new Set(record?.environment_tools?.map((t) => t.name)), previews, thread);
  return sseFrame(
    c,
    async (stream, signal) => {
      signal.addEventListener('abort', () => void release(), { once: true });
      // Shown as "watching now" to the session's other members (the console, GET …/watchers) until the stream ends.
      const unwatch = await deps.watchers.watch(id, user, signal).catch(() => undefined);
      const following = new AbortController();
      signal.addEventListener('abort', () => following.abort(), { once: true });
      let deleted = false;
      const write = async (mapped: ManagedEvent) => {
        if (stream.aborted || stream.closed) return;
        // A preview has no id: a client that reconnects resumes after the last event it was given.
        if (mapped.preview) await stream.writeSSE({ event: mapped.event.type, data: JSON.stringify(mapped.event) });
        else await stream.writeSSE({ id: managedCursor(mapped), event: mapped.event.type, data: JSON.stringify(mapped.event) });
      };
      void followSessionChanges(deps, id, from, following.signal, thread === undefined ? write : async () => undefined).then((gone) => {
        deleted = gone;
        following.abort();
      });
      try {
        for await (const event of watchSession(deps, id, { signal: following.signal })) {
          for (const mapped of map(event)) {
            if (compareManaged(mapped, from) <= 0) continue;
            if (stream.aborted || stream.closed || following.signal.aborted) {
              following.abort();
              break;
            }
            await write(mapped);
          }
        }
        if (deleted && !signal.aborted && !stream.closed) {
          // No cursor: there is nothing left to resume.
          const processed_at = new Date().toISOString();
          for (const type of ['session.status_terminated', 'session.deleted'] as const) {
            await stream.writeSSE({ event: type, data: JSON.stringify({ id: `sevt_${type.slice('session.'.length)}_${id}`, type, processed_at }) });
          }
        }
      } finally {
        following.abort();
        await unwatch?.();
      }
    },
    { maxDurationMs },
  );
}

type Cursor = Pick<ManagedEvent, 'position' | 'k'>;

function parseCursor(value: string, field = 'page'): Cursor {
  const cursor = parseManagedCursor(value);
  if (!cursor) throw invalidField(field, 'is not an event cursor this session handed out (such as "12.3.0")');
  return cursor;
}

/** Text blocks' texts; any other block is refused by name. */
function textOf(blocks: z.infer<typeof textBlocks>, field: string): string[] {
  return blocks.map((block, j) => {
    if (block.type !== 'text' || typeof block.text !== 'string') throw invalidField(`${field}.${j}`, `"${block.type}" blocks are not supported; send text`);
    return block.text;
  });
}

/** A worker posting results: it must reach the session's environment (a 404 for the session otherwise, as for anyone else). */
async function workerAccess(deps: V1Deps, id: string, user: AuthUser) {
  const record = await readSessionRecord(deps.artifacts, id).catch(() => undefined);
  const environment = record && (await deps.environments.get(record.environment_id));
  if (!record || !environment || environment.kind !== 'self_hosted' || !mayReach(environment, user)) throw notFound(`no session "${id}"`, 'session_id');
  return { record };
}

/**
 * `user.interrupt`: the active run stops at its next safe point; a run that waits for a person is cancelled as `/api/v2`'s cancel does.
 * The id of the run it stopped, or undefined when nothing ran.
 */
async function interrupt(deps: V1Deps, id: string): Promise<string | undefined> {
  const lease = await deps.leases.inspect(id);
  if (lease?.active && lease.run_id) {
    await stopRun(deps, id, lease.run_id, 'cancelled');
    return lease.run_id;
  }
  return cancelWaitingRun(deps, id);
}

/** A decision or a custom tool's result for one call of the waiting run (Zero's approvals); a 409 when that call does not wait for it. */
async function answer(
  deps: V1Deps,
  c: Context<Env>,
  id: string,
  toolUseId: string,
  kind: 'decision' | 'result',
  field: string,
  make: (call: { name: string }) => { decision: 'allow' | 'deny'; message?: string; result?: { content: string; is_error?: boolean; truncated?: boolean } },
) {
  const user = c.get('user');
  const by = { id: user.id, ...(user.name ? { name: user.name } : {}) };
  const { recorded } = await decideApprovals(deps, id, (waiting) => {
    const call = waiting?.pending.find((p) => p.tool_use_id === toolUseId && !!p.client_tool === (kind === 'result'));
    if (!call) throw conflict(`${field}: tool call "${toolUseId}" does not wait for ${kind === 'result' ? 'a custom tool result' : 'a confirmation'}`, { field });
    return [{ toolCallId: call.tool_use_id, by, ...make(call) }];
  });
  return recorded[0]?.tool_use_id ?? toolUseId;
}
