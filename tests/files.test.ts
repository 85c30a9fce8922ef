import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic, { toFile } from '@anthropic-ai/sdk';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type * as z from 'zod';
import { DEV_KEY, getJson, postJson, startHarness, type Harness } from './support/harness';
import { apiErrorSchema, sentEventsSchema, sessionEventSchema, type SessionEvent, valid } from './support/managed-agents-schemas';
import { deletedFileSchema, fileMetadataSchema, filePageSchema } from './support/files-schemas';
import { bigPdf, GIF, PDF, PNG } from './support/media';
import { NodeChat, newChatId } from './support/node-chat';
import { cliEnv, runCli } from './support/cli';
import { BlobStore } from '@zero/runtime/files/blob-store';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';

const ENV = 'env_zero_lambda';
const FILES_BETA = ['files-api-2025-04-14'] as const;
const MiB = 1024 * 1024;


const errorOf = (e: unknown) => valid(apiErrorSchema, (e as InstanceType<typeof Anthropic.APIError>).error).error;

async function readUntilIdle(stream: AsyncIterable<unknown>): Promise<SessionEvent[]> {
  const out: SessionEvent[] = [];
  for await (const value of stream) {
    const event = valid(sessionEventSchema, value);
    out.push(event);
    if (event.type === 'session.status_idle') return out;
  }
  throw new Error(`the stream ended before the session was idle; got ${out.map((e) => e.type).join(', ')}`);
}

describe('Files and attachments, through the official SDK', () => {
  let h: Harness;
  let admin: Anthropic;
  let alice: Anthropic;
  let mallory: Anthropic;
  let aliceHeaders: Record<string, string>;

  beforeAll(async () => {
    h = await startHarness();
    admin = new Anthropic({ apiKey: DEV_KEY, baseURL: h.url, maxRetries: 0 });
    aliceHeaders = await h.userHeaders('alice');
    alice = new Anthropic({ apiKey: aliceHeaders.authorization!.slice('Bearer '.length), baseURL: h.url, maxRetries: 0 });
    mallory = new Anthropic({ apiKey: (await h.userHeaders('mallory')).authorization!.slice('Bearer '.length), baseURL: h.url, maxRetries: 0 });
  });
  afterAll(() => h.close());
  afterEach(() => h.fake.reset());

  it("uploads, lists, describes, downloads and deletes a file; another user's calls are 404s, an administrator's are not", async () => {
    const uploaded = valid(fileMetadataSchema, await alice.beta.files.upload({ file: await toFile(PNG, 'dot.png', { type: 'image/png' }), betas: [...FILES_BETA] }));
    expect(uploaded).toMatchObject({ type: 'file', filename: 'dot.png', mime_type: 'image/png', size_bytes: PNG.byteLength, downloadable: true });
    const second = valid(fileMetadataSchema, await alice.beta.files.upload({ file: await toFile(PDF, 'paper.pdf', { type: 'application/pdf' }) }));

    const listed: string[] = [];
    for await (const file of alice.beta.files.list({ limit: 1 })) listed.push(valid(fileMetadataSchema, file).id);
    expect(listed).toEqual([second.id, uploaded.id]);
    valid(filePageSchema, await alice.beta.files.list().then((page) => ({ data: page.data, next_page: page.next_page })));
    expect(valid(fileMetadataSchema, await alice.beta.files.retrieveMetadata(uploaded.id))).toEqual(uploaded);
    const content = await alice.beta.files.download(uploaded.id);
    expect(content.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await content.arrayBuffer()).equals(PNG)).toBe(true);

    // Mallory learns nothing: the same 404 as for a file that does not exist, and her list is empty.
    const stolen = await mallory.beta.files.retrieveMetadata(uploaded.id).catch((e: unknown) => e);
    expect(stolen).toBeInstanceOf(Anthropic.NotFoundError);
    expect(await mallory.beta.files.download(uploaded.id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect(await mallory.beta.files.delete(uploaded.id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect((await mallory.beta.files.list()).data).toEqual([]);
    // An administrator reaches it.
    expect(valid(fileMetadataSchema, await admin.beta.files.retrieveMetadata(uploaded.id)).id).toBe(uploaded.id);

    expect(valid(deletedFileSchema, await alice.beta.files.delete(uploaded.id))).toEqual({ id: uploaded.id, type: 'file_deleted' });
    expect(await alice.beta.files.retrieveMetadata(uploaded.id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
    expect(await alice.beta.files.download(uploaded.id).catch((e: unknown) => e)).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it('refuses an upload over the limit with a 413 naming it, and a body that is not a file with a 400', async () => {
    const big = await alice.beta.files.upload({ file: await toFile(Buffer.alloc(33 * MiB), 'big.bin') }).catch((e: unknown) => e);
    expect(big).toBeInstanceOf(Anthropic.APIError);
    expect((big as InstanceType<typeof Anthropic.APIError>).status).toBe(413);
    expect(errorOf(big).message).toContain('32 MiB');
    const notMultipart = await postJson(`${h.url}/v1/files`, { file: 'x' }, aliceHeaders);
    expect(notMultipart.status).toBe(400);
    expect(JSON.stringify(notMultipart.json)).toContain('multipart/form-data');
    const bogusId = await alice.beta.files.retrieveMetadata('../../agents/zero').catch((e: unknown) => e);
    expect(bogusId).toBeInstanceOf(Anthropic.NotFoundError);
  });

  it("sends an image (from a file) and a PDF (inline) in a user.message: the model gets image and document blocks; the log keeps pointers, not bytes", async () => {
    const agent = await alice.beta.agents.create({ name: 'Looker', model: 'claude-sonnet-4-6' });
    const session = await alice.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const image = await alice.beta.files.upload({ file: await toFile(PNG, 'dot.png', { type: 'image/png' }) });
    h.fake.script({ text: 'a dot and a paper' });
    const stream = await alice.beta.sessions.events.stream(session.id);
    const sent = valid(
      sentEventsSchema,
      await alice.beta.sessions.events.send(session.id, {
        events: [
          {
            type: 'user.message',
            content: [
              { type: 'text', text: 'What are these?' },
              { type: 'image', source: { type: 'file', file_id: image.id } },
              { type: 'document', source: { type: 'base64', media_type: 'application/pdf', data: PDF.toString('base64') }, title: 'paper.pdf' },
            ],
          },
        ],
      }),
    );
    expect(sent.data?.[0]?.type).toBe('user.message');
    const events = await readUntilIdle(stream);
    expect(events.some((e) => e.type === 'agent.message')).toBe(true);
    expect(h.fake.mediaBlocks()).toEqual([
      { type: 'image', media_type: 'image/png', bytes: PNG.byteLength, head: PNG.subarray(0, 8).toString('latin1') },
      { type: 'document', media_type: 'application/pdf', bytes: PDF.byteLength, head: PDF.subarray(0, 8).toString('latin1'), title: 'paper.pdf' },
    ]);
    // The event list shows the message with the image's file (bytes sent inline are not sent back).
    const listed = [];
    for await (const e of alice.beta.sessions.events.list(session.id)) listed.push(valid(sessionEventSchema, e));
    expect(listed.find((e) => e.type === 'user.message')).toMatchObject({ content: [{ type: 'text', text: 'What are these?' }, { type: 'image', source: { type: 'file', file_id: image.id } }] });
    // DynamoDB holds the hash, never the bytes.
    const log = await h.server.runtime.sessions.readLog(session.id);
    const message = log.find((r) => r.kind === 'user_message');
    expect(message?.kind === 'user_message' && message.attachments?.map((a) => a.media_type)).toEqual(['image/png', 'application/pdf']);
    expect(JSON.stringify(log)).not.toContain(PDF.toString('base64').slice(0, 40));

    // A second message: the earlier attachments are read from the bucket again for the model.
    h.fake.script({ text: 'still a dot' });
    const again = await alice.beta.sessions.events.stream(session.id);
    await alice.beta.sessions.events.send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'And now?' }] }] });
    await readUntilIdle(again);
    expect(h.fake.mediaBlocks().map((b) => b.type)).toEqual(['image', 'document']);
  });

  it('refuses a 30 MB PDF before any model call, naming the limit; a URL source and a file of another user too', async () => {
    const agent = await alice.beta.agents.create({ name: 'Reader', model: 'claude-sonnet-4-6' });
    const session = await alice.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const big = await alice.beta.files.upload({ file: await toFile(bigPdf(30 * 1000 * 1000), 'big.pdf', { type: 'application/pdf' }) });
    const calls = h.fake.requests.length;
    const refused = await alice.beta.sessions.events
      .send(session.id, { events: [{ type: 'user.message', content: [{ type: 'text', text: 'Read this' }, { type: 'document', source: { type: 'file', file_id: big.id } }] }] })
      .catch((e: unknown) => e);
    expect((refused as InstanceType<typeof Anthropic.APIError>).status).toBe(413);
    expect(errorOf(refused).message).toContain('the limit for a PDF is 20 MiB');
    const url = await alice.beta.sessions.events
      .send(session.id, { events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'url', url: 'http://169.254.169.254/latest' } }] }] })
      .catch((e: unknown) => e);
    expect(url).toBeInstanceOf(Anthropic.BadRequestError);
    expect(errorOf(url).message).toContain('url sources are not fetched');
    const theirs = await mallory.beta.files.upload({ file: await toFile(PNG, 'm.png') });
    const foreign = await alice.beta.sessions.events
      .send(session.id, { events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'file', file_id: theirs.id } }] }] })
      .catch((e: unknown) => e);
    expect(foreign).toBeInstanceOf(Anthropic.NotFoundError);
    // A text file posing as an image is refused by its content.
    const fake = await alice.beta.sessions.events
      .send(session.id, { events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: Buffer.from('not an image').toString('base64') } }] }] })
      .catch((e: unknown) => e);
    expect(fake).toBeInstanceOf(Anthropic.BadRequestError);
    expect(errorOf(fake).message).toContain('is not a PNG, JPEG, GIF, WebP image or a PDF');
    expect(h.fake.requests.length).toBe(calls);
  }, 120_000);

  it("Zero's chat takes attachments (base64 or file ids); members read them, others get a 404", async () => {
    h.fake.script({ text: 'I see a dot' });
    const file = await alice.beta.files.upload({ file: await toFile(PDF, 'paper.pdf') });
    const { status, json } = await postJson(`${h.url}/api/v2/chat`, { message: 'Look', attachments: [{ media_type: 'image/png', data: `data:image/png;base64,${PNG.toString('base64')}`, filename: 'dot.png' }, { file_id: file.id }] }, aliceHeaders);
    expect(status).toBe(200);
    expect(h.fake.mediaBlocks().map((b) => [b.type, b.media_type])).toEqual([
      ['image', 'image/png'],
      ['document', 'application/pdf'],
    ]);
    const sessionId = json.session_id as string;
    const history = await getJson(`${h.url}/api/v2/sessions/${sessionId}`, aliceHeaders);
    const sha = JSON.stringify(history.json).match(/"sha256":"([0-9a-f]{64})"/)?.[1];
    expect(sha).toBeDefined();
    const read = await fetch(`${h.url}/api/v2/sessions/${sessionId}/attachments/${sha}`, { headers: aliceHeaders });
    expect(read.status).toBe(200);
    expect(Buffer.from(await read.arrayBuffer()).equals(PNG)).toBe(true);
    const malloryHeaders = await h.userHeaders('mallory');
    const outsider = await fetch(`${h.url}/api/v2/sessions/${sessionId}/attachments/${sha}`, { headers: malloryHeaders });
    expect(outsider.status).toBe(404);
    // An outsider's message to the session is refused before its attachment is stored.
    const planted = Buffer.concat([PNG, randomBytes(16)]);
    const intruder = await postJson(`${h.url}/api/v2/chat`, { session_id: sessionId, message: 'mine now', attachments: [{ media_type: 'image/png', data: planted.toString('base64') }] }, malloryHeaders);
    expect(intruder.status).toBe(404);
    const stored = await h.server.runtime.artifacts.list('blobs/sha256/');
    expect(stored.some((o) => o.key.endsWith(createHash('sha256').update(planted).digest('hex')))).toBe(false);

    const big = await postJson(`${h.url}/api/v2/chat`, { message: 'Read', attachments: [{ media_type: 'application/pdf', data: bigPdf(30 * 1000 * 1000).toString('base64') }] }, aliceHeaders);
    expect(big.status).toBe(413);
    expect(JSON.stringify(big.json)).toContain('a PDF 20 MiB');
  }, 120_000);

  it("deleting a session deletes the uploads only it held, through either door; bytes another session or a file holds stay", async () => {
    const blobKeys = async () => (await h.server.runtime.artifacts.list('blobs/sha256/')).map((o) => o.key.slice('blobs/sha256/'.length));
    const sha = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
    const own = Buffer.concat([PNG, randomBytes(16)]);
    const shared = Buffer.concat([PNG, randomBytes(16)]);
    const onlyFile = Buffer.concat([PDF, randomBytes(16)]);
    const file = await alice.beta.files.upload({ file: await toFile(onlyFile, 'kept.pdf', { type: 'application/pdf' }) });
    const attach = (bytes: Buffer) => ({ media_type: 'image/png', data: bytes.toString('base64') });
    h.fake.script({ text: 'seen' });
    const first = await postJson(`${h.url}/api/v2/chat`, { message: 'Look', attachments: [attach(own), attach(shared), { file_id: file.id }] }, aliceHeaders);
    expect(first.status).toBe(200);
    h.fake.script({ text: 'seen again' });
    const other = await postJson(`${h.url}/api/v2/chat`, { message: 'Look too', attachments: [attach(shared)] }, aliceHeaders);
    expect(other.status).toBe(200);
    expect(await blobKeys()).toEqual(expect.arrayContaining([sha(own), sha(shared), sha(onlyFile)]));

    const deleted = await fetch(`${h.url}/api/v2/sessions/${first.json.session_id}`, { method: 'DELETE', headers: aliceHeaders });
    expect(deleted.status).toBe(204);
    const left = await blobKeys();
    expect(left).not.toContain(sha(own));
    expect(left).toEqual(expect.arrayContaining([sha(shared), sha(onlyFile)]));
    const stillShared = await fetch(`${h.url}/api/v2/sessions/${other.json.session_id}/attachments/${sha(shared)}`, { headers: aliceHeaders });
    expect(stillShared.status).toBe(200);
    expect(Buffer.from(await stillShared.arrayBuffer()).equals(shared)).toBe(true);
    expect(Buffer.from(await (await alice.beta.files.download(file.id)).arrayBuffer()).equals(onlyFile)).toBe(true);

    // The Managed Agents door: a session's message image and its file resource's bytes go with it once nothing else holds them.
    const agent = await alice.beta.agents.create({ name: 'Looker', model: 'claude-sonnet-4-6' });
    const managed = await alice.beta.sessions.create({ agent: agent.id, environment_id: ENV });
    const resource = await alice.beta.files.upload({ file: await toFile(Buffer.concat([PDF, randomBytes(16)]), 'mounted.pdf', { type: 'application/pdf' }) });
    const added = await alice.beta.sessions.resources.add(managed.id, { type: 'file', file_id: resource.id });
    const image = Buffer.concat([PNG, randomBytes(16)]);
    h.fake.script({ text: 'a dot' });
    const stream = await alice.beta.sessions.events.stream(managed.id);
    await alice.beta.sessions.events.send(managed.id, { events: [{ type: 'user.message', content: [{ type: 'image', source: { type: 'base64', media_type: 'image/png', data: image.toString('base64') } }] }] });
    await readUntilIdle(stream);
    const resourceSha = (await h.server.runtime.artifacts.list('blobs/sha256/')).map((o) => o.key.slice('blobs/sha256/'.length)).find((k) => !left.includes(k) && k !== sha(image));
    expect(await blobKeys()).toContain(sha(image));
    // Neither the file's deletion nor the resource's removal lets go of what the session mounted until the session goes.
    await alice.beta.files.delete(resource.id);
    await alice.beta.sessions.resources.delete(added.id, { session_id: managed.id });
    expect(await blobKeys()).toContain(resourceSha);
    await alice.beta.sessions.delete(managed.id);
    const after = await blobKeys();
    expect(after).not.toContain(sha(image));
    expect(after).not.toContain(resourceSha);
  }, 120_000);

  it("bytes another holder's release deletes while a message stores them are put back once the message holds them", async () => {
    const real = h.server.runtime.artifacts;
    const bytes = new Uint8Array(Buffer.concat([PNG, randomBytes(16)]));
    const sha = createHash('sha256').update(bytes).digest('hex');
    await new BlobStore(real).put(bytes, 'image/png', 'session:leaving');
    // The leaving session lets go after the message's put and before its hold: it sees no holder and deletes the bytes.
    const racing = Object.create(real) as ArtifactStore;
    racing.put = async (key, body, type) => {
      if (key === `blobs/refs/${sha}/${encodeURIComponent('session:arriving')}`) {
        await new BlobStore(real).release(sha, 'session:leaving');
        expect(await real.exists(`blobs/sha256/${sha}`)).toBe(false);
      }
      return real.put(key, body, type);
    };
    await new BlobStore(racing).put(bytes, 'image/png', 'session:arriving');
    expect(Buffer.from((await new BlobStore(real).read(sha))!).equals(Buffer.from(bytes))).toBe(true);
    expect(await new BlobStore(real).heldBy('session:arriving')).toEqual([sha]);
  });

  it("useChat's file parts reach the model as image and document blocks", async () => {
    h.fake.script({ text: 'a gif and a paper' });
    const chat = new NodeChat(h.url, newChatId(), aliceHeaders);
    await chat.sendMessage({
      text: 'What are these?',
      files: [
        { type: 'file', mediaType: 'image/gif', url: `data:image/gif;base64,${GIF.toString('base64')}`, filename: 'dot.gif' },
        { type: 'file', mediaType: 'application/pdf', url: `data:application/pdf;base64,${PDF.toString('base64')}`, filename: 'paper.pdf' },
      ],
    });
    expect(chat.error).toBeUndefined();
    expect(h.fake.mediaBlocks().map((b) => [b.type, b.media_type])).toEqual([
      ['image', 'image/gif'],
      ['document', 'application/pdf'],
    ]);
    // A file part by URL is refused by name: Zero fetches nothing for a message.
    const refused = new NodeChat(h.url, newChatId(), aliceHeaders);
    await refused.sendMessage({ text: 'Look', files: [{ type: 'file', mediaType: 'image/png', url: 'https://example.com/a.png' }] });
    expect(refused.error?.message).toContain('must be a data: URL');
  });

  it('the CLI sends the images and PDFs a prompt mentions with @path; a missing one is a usage error naming it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zero-cli-attach-'));
    writeFileSync(join(dir, 'shot.png'), PNG);
    writeFileSync(join(dir, 'spec.pdf'), PDF);
    h.fake.script({ text: 'A dot and a spec.' });
    const env = cliEnv({ ZERO_URL: h.url, ZERO_KEY: DEV_KEY });
    const run = await runCli(['-q', `Compare @${join(dir, 'shot.png')} with @${join(dir, 'spec.pdf')}, and ask @alice.`], { env, timeoutMs: 60_000 });
    expect({ code: run.code, stderr: run.stderr }).toMatchObject({ code: 0 });
    expect(run.stdout).toContain('A dot and a spec.');
    expect(h.fake.mediaBlocks().map((b) => [b.type, b.media_type, b.title])).toEqual([
      ['image', 'image/png', undefined],
      ['document', 'application/pdf', 'spec.pdf'],
    ]);
    const missing = await runCli(['-q', `Look at @${join(dir, 'gone.png')}`], { env });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain(`@${join(dir, 'gone.png')}: cannot read`);
  }, 120_000);
});
