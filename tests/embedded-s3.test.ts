import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Client } from '@zero/runtime/store/clients';
import { startLocalStack, type LocalStack } from '../local/stack';

describe("the embedded S3 of npm start is read-after-write consistent, as S3 is", () => {
  let stack: LocalStack;
  let s3: S3Client;
  beforeAll(async () => {
    stack = await startLocalStack();
    s3 = createS3Client(stack.store);
  });
  afterAll(async () => {
    s3?.destroy();
    await stack?.stop();
  });

  const put = (key: string, body: string) => s3.send(new PutObjectCommand({ Bucket: stack.store.bucket, Key: key, Body: body, ContentType: 'application/json' }));
  const get = async (key: string) => (await s3.send(new GetObjectCommand({ Bucket: stack.store.bucket, Key: key }))).Body!.transformToString();

  it('2,000 writes, each read back at once while large uploads keep the disk busy, return what was written: never empty, never the version before', async () => {
    // Eight writers at once, each overwriting its own keys with documents of changing sizes (a hook, a project.json) and reading each back,
    // while two others upload 4 MB objects (the busier the disk, the longer s3rver's own store wrote after answering).
    const lanes = 8;
    const rounds = 250;
    const wrong: { key: string; wrote: number; read: string }[] = [];
    let busy = true;
    const large = Buffer.alloc(4 * 1024 * 1024, 'z');
    const uploads = Array.from({ length: 2 }, async (_, i) => {
      while (busy) await s3.send(new PutObjectCommand({ Bucket: stack.store.bucket, Key: `large/${i}.bin`, Body: large }));
    });
    await Promise.all(
      Array.from({ length: lanes }, async (_, lane) => {
        for (let round = 0; round < rounds; round++) {
          const key = `projects/lane-${lane}/doc-${round % 5}.json`;
          const body = JSON.stringify({ lane, round, padding: 'x'.repeat((round * 7919) % 60_000) });
          await put(key, body);
          const read = await get(key);
          if (read !== body) wrong.push({ key, wrote: body.length, read: read.slice(0, 60) });
        }
      }),
    ).finally(() => (busy = false));
    await Promise.all(uploads);
    expect(wrong).toEqual([]);
  }, 300_000);

  it('a read during an overwrite returns the object before or after it, whole, never a part', async () => {
    const versions = Array.from({ length: 12 }, (_, i) => String.fromCharCode(97 + i).repeat(1024 * 1024 + i));
    await put('big/doc.bin', versions[0]!);
    const seen = new Set<number>();
    let writing = true;
    const reader = (async () => {
      while (writing) {
        const read = await get('big/doc.bin');
        const version = versions.indexOf(read);
        expect({ length: read.length, whole: version >= 0 }).toEqual({ length: read.length, whole: true });
        seen.add(version);
      }
    })();
    for (const version of versions.slice(1)) await put('big/doc.bin', version);
    writing = false;
    await reader;
    expect(await get('big/doc.bin')).toBe(versions.at(-1));
    const listed = await s3.send(new ListObjectsV2Command({ Bucket: stack.store.bucket, Prefix: 'big/' }));
    expect(listed.Contents?.map((object) => [object.Key, object.Size])).toEqual([['big/doc.bin', versions.at(-1)!.length]]);
  });

  it('answers ranged reads as S3 does (a project file read up to a size)', async () => {
    await put('ranged/file.txt', 'abcdef');
    const ranged = async (range: string) => {
      const answer = await s3.send(new GetObjectCommand({ Bucket: stack.store.bucket, Key: 'ranged/file.txt', Range: range }));
      return { body: await answer.Body!.transformToString(), range: answer.ContentRange, length: answer.ContentLength };
    };
    expect(await ranged('bytes=0-2')).toEqual({ body: 'abc', range: 'bytes 0-2/6', length: 3 });
    expect(await ranged('bytes=2-99')).toEqual({ body: 'cdef', range: 'bytes 2-5/6', length: 4 });
    await expect(s3.send(new GetObjectCommand({ Bucket: stack.store.bucket, Key: 'ranged/none.txt' }))).rejects.toThrow(/NoSuchKey|does not exist/);
  });
});
