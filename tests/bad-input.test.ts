import { createHash, randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MESSAGE_CHARS } from '@zero/agent/wire/fields';
import { DEV, getJson, postJson, startHarness, type Harness } from './support/harness';
import { chatStream } from './support/sse';
import { PNG } from './support/media';

describe('bad input gets a clear 4xx, never a 500', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());
  const chat = (body: unknown) => postJson(`${h.url}/api/v2/chat`, body);

  it('invalid JSON → 400 invalid_json', async () => {
    const { status, json } = await chat('{"message": "hi",');
    expect(status).toBe(400);
    expect(json.error.code).toBe('invalid_json');
  });

  it.each([
    [{}, 'message'],
    [{ message: '' }, 'message'],
    [{ message: 42 }, 'message'],
    [{ message: 'hi', voice_mode: 'loud' }, 'voice_mode'],
    [{ message: 'hi', stream: 'yes' }, 'stream'],
    [{ message: 'hi', project_id: '../etc' }, 'project_id'],
    [{ message: 'hi', agent_id: 'a b' }, 'agent_id'],
    [{ message: 'hi', surprise: true }, 'surprise'],
    [[], ''],
    [null, ''],
  ])('schema failure %j → 400 naming the field', async (body, field) => {
    const { status, json } = await chat(body);
    expect(status).toBe(400);
    expect(json.error.code).toBe('invalid_request');
    if (field) expect(json.error.field).toBe(field);
    if (field) expect(json.error.message).toContain(field);
    expect(h.fake.requests).toHaveLength(0);
  });

  it.each([
    ['GET /sessions/<3000 characters>', 'GET', `/sessions/${'s'.repeat(3000)}`, 'session_id'],
    ['GET /sessions/<3000 characters>/events', 'GET', `/sessions/${'s'.repeat(3000)}/events`, 'session_id'],
    ['DELETE /sessions/<3000 characters>', 'DELETE', `/sessions/${'s'.repeat(3000)}`, 'session_id'],
    ['DELETE /keys/<1100 characters>', 'DELETE', `/keys/${'k'.repeat(1100)}`, 'key_id'],
    ['DELETE /keys/…?user_id=<1100 characters>', 'DELETE', `/keys/0123456789ab?user_id=${'u'.repeat(1100)}`, 'user_id'],
    // {"gsi1pk":"USER#dev"}: the caller's own user, but not a key DynamoDB can start a page from.
    ['GET /sessions?cursor=eyJnc2kxcGsiOiJVU0VSI2RldiJ9', 'GET', '/sessions?cursor=eyJnc2kxcGsiOiJVU0VSI2RldiJ9', 'cursor'],
  ])('%s → 400 naming the field, not a 500', async (_label, method, path, field) => {
    const response = await fetch(`${h.url}/api/v2${path}`, { method, headers: DEV });
    const json = (await response.json()) as { error: { code: string; field: string; message: string } };
    expect([response.status, json.error]).toMatchObject([400, { code: 'invalid_request', field }]);
    expect(json.error.message).toContain(field);
  });

  it('unknown agent → 404 listing the agents', async () => {
    const { status, json } = await chat({ message: 'hi', agent_id: 'nobody' });
    expect(status).toBe(404);
    expect(json.error.code).toBe('agent_not_found');
    expect(json.error.agents).toEqual(expect.arrayContaining(['zero', 'cereal']));
    expect(json.error.message).toContain('zero');
  });

  it("a new session's unknown agent → 404 before its attachments are stored", async () => {
    const image = Buffer.concat([PNG, randomBytes(16)]);
    const { status, json } = await chat({ message: 'look', agent_id: 'nobody', attachments: [{ media_type: 'image/png', data: image.toString('base64') }] });
    expect(status).toBe(404);
    expect(json.error.code).toBe('agent_not_found');
    const stored = await h.server.runtime.artifacts.list('blobs/sha256/');
    expect(stored.some((o) => o.key.endsWith(createHash('sha256').update(image).digest('hex')))).toBe(false);
  });

  it('unknown session → 404, on chat and on read', async () => {
    const posted = await chat({ message: 'hi', session_id: 'no-such-session' });
    expect(posted.status).toBe(404);
    expect(posted.json.error.code).toBe('session_not_found');
    const read = await fetch(`${h.url}/api/v2/sessions/no-such-session`, { headers: DEV });
    expect(read.status).toBe(404);
  });

  it(`a message over ${MAX_MESSAGE_CHARS} characters → 413`, async () => {
    const { status, json } = await chat({ message: 'x'.repeat(MAX_MESSAGE_CHARS + 1) });
    expect(status).toBe(413);
    expect(json.error.field).toBe('message');
  });

  it('a body over the byte limit → 413', async () => {
    const { status, json } = await chat({ message: 'hi', pad: 'y'.repeat(2_000_000) });
    expect(status).toBe(413);
    expect(json.error.code).toBe('payload_too_large');
  });

  it('an unknown route → 404 JSON', async () => {
    const { status, json } = await postJson(`${h.url}/api/v2/nothing`, {});
    expect(status).toBe(404);
    expect(json.error.code).toBe('not_found');
  });

  it('a model API failure → an error event and a persisted record, with the message kept', async () => {
    // The SDK retries 5xx (maxRetries 2 in the harness); every attempt fails.
    h.fake.script({ status: 500 }, { status: 500 }, { status: 500 });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'please keep me' });
    expect(h.fake.requests).toHaveLength(3);
    const error = events.find((e) => e.type === 'error');
    expect(error).toMatchObject({ code: 'model_error' });
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
    const sessionId = (events[0] as { session_id: string }).session_id;
    const { history } = (await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json;
    expect(history[0]).toMatchObject({ kind: 'user_message', text: 'please keep me' });
    expect(history.at(-1)).toMatchObject({ kind: 'run_end', status: 'error', error: { code: 'model_error' } });

    // The session still works afterwards, and the model sees the kept message.
    h.fake.script({ text: 'Back again.' });
    const again = await chatStream(h.url, { session_id: sessionId, message: 'retry' });
    expect(again.events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
    expect(JSON.stringify(h.fake.requests.at(-1)!.body.messages)).toContain('please keep me');
  });

  it('a 429 with retry-after is retried by the SDK and the run succeeds', async () => {
    h.fake.script({ status: 429, retryAfterSeconds: 0 }, { text: 'after the wait' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'busy?' });
    expect(h.fake.requests).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'completed' });
  });

  it('a mid-stream error retries the whole step, keeping nothing of the failed attempt', async () => {
    h.fake.script({ text: 'half of a broken answer', failAfterChunks: 2 }, { text: 'the clean answer' });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'flaky' });
    const retry = events.find((e) => e.type === 'retry');
    expect(retry).toMatchObject({ step: 1, attempt: 1 });
    const afterRetry = events.slice(events.indexOf(retry!) + 1).filter((e) => e.type === 'text');
    expect(afterRetry.map((e) => (e as { delta: string }).delta).join('')).toBe('the clean answer');
    const sessionId = (events[0] as { session_id: string }).session_id;
    const { history } = (await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json;
    const assistants = history.filter((r: { kind: string }) => r.kind === 'assistant');
    expect(assistants).toHaveLength(1);
    expect(assistants[0].content).toEqual([{ type: 'text', text: 'the clean answer' }]);
  });

  it('mid-stream errors past the bound end the run with an error', async () => {
    h.fake.script({ text: 'a b c', failAfterChunks: 1 }, { text: 'a b c', failAfterChunks: 1 }, { text: 'a b c', failAfterChunks: 1 });
    const { events } = await chatStream(h.url, { agent_id: 'tester', message: 'very flaky' });
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(2);
    expect(events.at(-1)).toMatchObject({ type: 'done', status: 'error' });
  });
});

describe('without a model configured', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ noModel: true });
  });
  afterAll(() => h.close());

  it('the server starts and a chat gets an error event saying what to set', async () => {
    const health = await fetch(`${h.url}/health`);
    expect(health.status).toBe(200);
    const { events } = await chatStream(h.url, { message: 'hello?' });
    const error = events.find((e) => e.type === 'error') as { code: string; message: string };
    expect(error.code).toBe('model_not_configured');
    expect(error.message).toContain('ANTHROPIC_API_KEY');
    expect(error.message).toContain('ANTHROPIC_BASE_URL');
    const sessionId = (events[0] as { session_id: string }).session_id;
    const { history } = (await getJson(`${h.url}/api/v2/sessions/${sessionId}`)).json;
    expect(history[0]).toMatchObject({ kind: 'user_message', text: 'hello?' });
  });
});
