import Anthropic from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { getJson, postJson, type Harness } from './support/harness';
import { startHarnessWithSdk, streamReader } from './support/sdk';
import { RUBRIC, isGrader, lyonThenParis, verdict } from './support/outcome-graders';
import { sessionSchema, valid } from './support/managed-agents-schemas';
import { eventWithOutcomesSchema, outcomeEvaluationSchema, type EventWithOutcomes } from './support/outcome-schemas';

const ENV = 'env_zero_lambda';

/** Reads the SDK's event stream until `stop` says so, each event checked against the SDK's types; a later call reads on. */
const readUntil = streamReader(eventWithOutcomesSchema);

describe('outcomes: a grader in its own context scores the answer against a rubric and may send the agent back', () => {
  let h: Harness;
  let client: Anthropic;

  beforeAll(async () => ({ h, client } = await startHarnessWithSdk()));
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it('through the SDK: define_outcome, a revision with the grader feedback, satisfied (each grading with its ongoing heartbeat, streamed and listed); the outcome on the session', async () => {
    h.fake.respondWith(lyonThenParis);
    const agent = await client.beta.agents.create({ name: 'Geographer', model: 'claude-sonnet-4-6', system: 'You answer geography questions.' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const events = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    const sent = await client.beta.sessions.events.send(session.id, {
      events: [{ type: 'user.define_outcome', description: 'What is the capital of France?', rubric: { type: 'text', content: RUBRIC } }],
    });
    const echo = valid(eventWithOutcomesSchema, (sent as { data: unknown[] }).data[0]);
    expect(echo).toMatchObject({ type: 'user.define_outcome', max_iterations: 3, rubric: { type: 'text', content: RUBRIC } });
    const outcomeId = (echo as { outcome_id: string }).outcome_id;

    const seen = await readUntil(events, (e) => e.type === 'span.outcome_evaluation_end' && e.result === 'satisfied');
    const spans = seen.filter((e) => e.type.startsWith('span.outcome_evaluation')).map((e) => [e.type, (e as { iteration: number }).iteration, (e as { result?: string }).result]);
    const expectedSpans = [
      ['span.outcome_evaluation_start', 0, undefined],
      ['span.outcome_evaluation_ongoing', 0, undefined],
      ['span.outcome_evaluation_end', 0, 'needs_revision'],
      ['span.outcome_evaluation_start', 1, undefined],
      ['span.outcome_evaluation_ongoing', 1, undefined],
      ['span.outcome_evaluation_end', 1, 'satisfied'],
    ];
    expect(spans).toEqual(expectedSpans);
    // The list has the same spans, the heartbeat included, each in the SDK's shape.
    const listed: EventWithOutcomes[] = [];
    for await (const e of client.beta.sessions.events.list(session.id)) listed.push(valid(eventWithOutcomesSchema, e));
    const listedSpans = listed.filter((e) => e.type.startsWith('span.outcome_evaluation')).map((e) => [e.type, (e as { iteration: number }).iteration, (e as { result?: string }).result]);
    expect(listedSpans).toEqual(expectedSpans);
    const ends = seen.filter((e) => e.type === 'span.outcome_evaluation_end');
    const starts = seen.filter((e) => e.type === 'span.outcome_evaluation_start');
    expect(ends.map((e) => (e as { outcome_evaluation_start_id: string }).outcome_evaluation_start_id)).toEqual(starts.map((e) => e.id));
    expect(seen.some((e) => e.type === 'user.define_outcome' && e.outcome_id === outcomeId)).toBe(true);
    // The revision is the outcome's own doing, not a user's message.
    expect(seen.filter((e) => e.type === 'user.message')).toEqual([]);
    expect(seen.filter((e) => e.type === 'agent.message').map((e) => JSON.stringify(e))).toEqual([expect.stringContaining('Lyon'), expect.stringContaining('Paris is the capital')]);

    // The grader's context: the rubric, the task and the answer, and nothing of the agent's conversation.
    const graderCalls = h.fake.requests.filter(isGrader);
    expect(graderCalls).toHaveLength(2);
    for (const call of graderCalls) {
      expect(call.body.messages).toHaveLength(1);
      expect(JSON.stringify(call.body.messages)).toContain(RUBRIC);
      expect(JSON.stringify(call.body)).not.toContain('You answer geography questions.');
      expect(call.body.tools ?? []).toEqual([]);
    }
    // The agent's second run was given the grader's reasons.
    const agentCalls = h.fake.requests.filter((r) => !isGrader(r));
    expect(JSON.stringify(agentCalls.at(-1)!.body.messages)).toContain('say Paris');

    await readUntil(events, (e) => e.type === 'session.status_idle');
    const retrieved = valid(sessionSchema, await client.beta.sessions.retrieve(session.id));
    expect(retrieved.outcome_evaluations.map((o) => valid(outcomeEvaluationSchema, o))).toEqual([
      expect.objectContaining({ outcome_id: outcomeId, description: 'What is the capital of France?', iteration: 1, result: 'satisfied', explanation: 'Names Paris.', completed_at: expect.any(String) }),
    ]);
  });

  it('stops at max_iterations with the criteria unmet: max_iterations_reached, no further revision', async () => {
    h.fake.respondWith((request) => (isGrader(request) ? verdict('needs_revision', 0, 'Not Paris.') : { text: 'Lyon.' }));
    const agent = await client.beta.agents.create({ name: 'Stubborn', model: 'claude-sonnet-4-6' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const events = (await client.beta.sessions.events.stream(session.id))[Symbol.asyncIterator]();
    await client.beta.sessions.events.send(session.id, { events: [{ type: 'user.define_outcome', description: 'Capital of France?', rubric: { type: 'text', content: RUBRIC }, max_iterations: 2 }] });
    const seen = await readUntil(events, (e) => e.type === 'span.outcome_evaluation_end' && e.result !== 'needs_revision');
    expect(seen.filter((e) => e.type === 'span.outcome_evaluation_end').map((e) => (e as { result: string }).result)).toEqual(['needs_revision', 'max_iterations_reached']);
    await readUntil(events, (e) => e.type === 'session.status_idle');
    expect(h.fake.requests.filter((r) => !isGrader(r))).toHaveLength(2);
  });

  it('refuses a file rubric, an empty one and max_iterations over 20, naming the field', async () => {
    const agent = await client.beta.agents.create({ name: 'Refused', model: 'claude-sonnet-4-6' });
    const session = await client.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const bad = [
      { type: 'user.define_outcome', description: 'x', rubric: { type: 'file', file_id: 'file_1' } },
      { type: 'user.define_outcome', description: 'x', rubric: { type: 'text', content: ' ' } },
      { type: 'user.define_outcome', description: 'x', rubric: { type: 'text', content: 'r' }, max_iterations: 21 },
    ];
    for (const event of bad) {
      const error = await client.beta.sessions.events.send(session.id, { events: [event as never] }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(Anthropic.BadRequestError);
      expect((error as InstanceType<typeof Anthropic.APIError>).message).toMatch(/events\.0\.(rubric|max_iterations)/);
    }
    expect(h.fake.requests).toHaveLength(0);
  });

  it("in Zero's own chat: an outcome's grade comes with the answer, and a bad rubric is a 400", async () => {
    h.fake.respondWith((request) => (isGrader(request) ? verdict('satisfied', 0.9, 'Names Paris.') : { text: 'Paris.' }));
    const { status, json } = await postJson(`${h.url}/api/v2/chat`, { message: 'Capital of France?', stream: false, outcome: { rubric: RUBRIC, max_iterations: 1 } });
    expect(status).toBe(200);
    expect(json.outcome).toMatchObject({ iteration: 0, result: 'satisfied', score: 0.9, explanation: 'Names Paris.' });
    // The message's outcome is in the session's history.
    const detail = await getJson(`${h.url}/api/v2/sessions/${json.session_id}`);
    expect(JSON.stringify(detail.json)).toContain(json.outcome.outcome_id);
    const refused = await postJson(`${h.url}/api/v2/chat`, { message: 'x', outcome: { rubric: '', max_iterations: 50 } });
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.json)).toMatch(/outcome\.(rubric|max_iterations)/);
  });
});
