import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DescribeTableCommand, DynamoDBClient, ResourceNotFoundException } from '@aws-sdk/client-dynamodb';
import { CreateBucketCommand, HeadBucketCommand, PutBucketCorsCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import { createS3Client, type StoreConfig } from '@zero/runtime/store/clients';
import { lockDataDir } from './data-lock';
import { ConsistentFilesystemStore } from './s3-store';

export const LOCAL_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

export interface LocalStack {
  store: StoreConfig;
  /** The folder s3rver keeps the objects in: the data folder's `s3/`, or a temporary folder that `stop` removes. */
  s3Dir: string;
  stop(): Promise<void>;
}

/**
 * Starts a DynamoDB-compatible server (dynalite) and an S3-compatible server
 * (s3rver) in this process, on loopback, and creates the table and bucket if
 * missing. With `dataDir` the data lives on disk and survives restarts;
 * without, DynamoDB is in memory and S3 uses a temporary folder, removed on
 * stop (or when the start fails). A data folder serves one stack at a time:
 * another one fails with `DataDirInUseError`.
 */
export async function startLocalStack(options: { dataDir?: string; table?: string; bucket?: string } = {}): Promise<LocalStack> {
  const table = options.table ?? 'zero';
  const bucket = options.bucket ?? 'zero';
  if (options.dataDir) await mkdir(options.dataDir, { recursive: true });
  const unlock = options.dataDir ? await lockDataDir(options.dataDir) : async () => undefined;
  const s3Dir = options.dataDir ? join(options.dataDir, 's3') : await mkdtemp(join(tmpdir(), 'zero-s3-'));
  const removeTemp = () => (options.dataDir ? Promise.resolve() : rm(s3Dir, { recursive: true, force: true }));
  try {
    return await startServers(options, { table, bucket, s3Dir, unlock, removeTemp });
  } catch (error) {
    await removeTemp().catch(() => undefined);
    await unlock();
    throw error;
  }
}

async function startServers(
  options: { dataDir?: string },
  { table, bucket, s3Dir, unlock, removeTemp }: { table: string; bucket: string; s3Dir: string; unlock: () => Promise<void>; removeTemp: () => Promise<void> },
): Promise<LocalStack> {
  const dynamo = dynalite({
    ...(options.dataDir ? { path: join(options.dataDir, 'dynamodb') } : {}),
    createTableMs: 0,
    deleteTableMs: 0,
    updateTableMs: 0,
  });
  await new Promise<void>((resolve, reject) => dynamo.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve())));
  const dynamoPort = (dynamo.address() as AddressInfo).port;

  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, allowMismatchedSignatures: true });
  // s3rver's own store answers a PUT before the object is written (see ConsistentFilesystemStore).
  s3.store = s3.context.store = new ConsistentFilesystemStore(s3Dir);
  const s3Address = (await s3.run()) as AddressInfo;

  const store: StoreConfig = {
    table,
    bucket,
    region: 'us-east-1',
    dynamoEndpoint: `http://127.0.0.1:${dynamoPort}`,
    s3Endpoint: `http://127.0.0.1:${s3Address.port}`,
    credentials: LOCAL_CREDENTIALS,
  };
  await ensureTable(store);
  await ensureBucket(store);

  return {
    store,
    s3Dir,
    async stop() {
      // Requests in flight finish; idle keep-alive sockets are closed so close does not wait on them.
      // Whatever is still connected after a grace period (a client that never stops) is cut.
      await new Promise<void>((resolve) => {
        const grace = setTimeout(() => dynamo.closeAllConnections(), 2000);
        dynamo.close(() => {
          clearTimeout(grace);
          resolve();
        });
        dynamo.closeIdleConnections();
      });
      await s3.close().catch(() => undefined);
      await removeTemp();
      await unlock();
    },
  };
}

/** The table the stores use: one partition key and one sort key, on demand. */
export async function ensureTable(store: StoreConfig): Promise<void> {
  const db = new DynamoDBClient({ region: store.region, endpoint: store.dynamoEndpoint, credentials: store.credentials });
  try {
    await db.send(new DescribeTableCommand({ TableName: store.table }));
  } catch (error) {
    if (!(error instanceof ResourceNotFoundException)) throw error;
    await db.send(
      new CreateTableCommand({
        TableName: store.table,
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
          { AttributeName: 'gsi1pk', AttributeType: 'S' },
          { AttributeName: 'gsi1sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
        // A user's sessions, newest first (membership items carry gsi1pk = USER#<id>).
        GlobalSecondaryIndexes: [
          {
            IndexName: 'gsi1',
            KeySchema: [
              { AttributeName: 'gsi1pk', KeyType: 'HASH' },
              { AttributeName: 'gsi1sk', KeyType: 'RANGE' },
            ],
            Projection: { ProjectionType: 'ALL' },
          },
        ],
      }),
    );
  } finally {
    db.destroy();
  }
}

export async function ensureBucket(store: StoreConfig): Promise<void> {
  const s3 = createS3Client(store);
  try {
    await s3.send(new HeadBucketCommand({ Bucket: store.bucket }));
  } catch {
    await s3.send(new CreateBucketCommand({ Bucket: store.bucket }));
  } finally {
    s3.destroy();
  }
}

/**
 * Lets the console at `consoleUrl` POST archives straight to the bucket, as
 * sst.config.ts's CORS rule does on AWS: locally the console and s3rver are
 * on different ports, so the browser asks s3rver first. On 127.0.0.1 the
 * same port is also allowed as `localhost`, the name a person may type.
 */
export async function allowConsoleUploads(store: StoreConfig, consoleUrl: string): Promise<void> {
  const url = new URL(consoleUrl);
  const origins = [url.origin, ...(url.hostname === '127.0.0.1' ? [`${url.protocol}//localhost:${url.port}`] : [])];
  const s3 = createS3Client(store);
  try {
    await s3.send(new PutBucketCorsCommand({ Bucket: store.bucket, CORSConfiguration: { CORSRules: [{ AllowedMethods: ['POST'], AllowedOrigins: origins }] } }));
  } finally {
    s3.destroy();
  }
}

/** Copies `dir/*.md` into the bucket's `agents/` prefix. */
export async function syncAgents(store: StoreConfig, dir: string): Promise<string[]> {
  const s3 = createS3Client(store);
  const names = (await readdir(dir)).filter((name) => name.endsWith('.md')).sort();
  for (const name of names) {
    const body = await readFile(join(dir, name));
    await s3.send(
      new PutObjectCommand({ Bucket: store.bucket, Key: `agents/${name}`, Body: body, ContentLength: body.byteLength, ContentType: 'text/markdown' }),
    );
  }
  s3.destroy();
  return names;
}
