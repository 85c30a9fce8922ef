import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import dynalite from 'dynalite';
import S3rver from 's3rver';
import type { StoreConfig } from '@zero/runtime/store/clients';
import { LOCAL_CREDENTIALS, ensureBucket, ensureTable } from '../../local/stack';
import { CLOUD_LATENCY, delayResponses } from '../support/cloud-latency';
import { DynamoRequestCounter } from '../support/dynamo-requests';

/**
 * dynalite (LevelDB on disk, as `npm start` runs it) and s3rver in their own
 * process, so Zero's figures do not include the storage servers' CPU time,
 * as they would not in production. Every DynamoDB request is counted by
 * operation and item type (`requests`, `resetRequests`). With
 * `ZERO_BENCH_CLOUD=1` (`--cloud`) every response is held back by an AWS
 * in-region latency (see support/cloud-latency.ts).
 */
const dir = await mkdtemp(join(tmpdir(), 'zero-bench-stores-'));
const dynamo = dynalite({ path: join(dir, 'dynamodb'), createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
const requests = new DynamoRequestCounter();
// Before dynalite's own handler, so the counter reads each body alongside it.
dynamo.prependListener('request', requests.observe);
await new Promise<void>((resolve, reject) => dynamo.listen(0, '127.0.0.1', (error?: Error) => (error ? reject(error) : resolve())));
const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: join(dir, 's3'), allowMismatchedSignatures: true });
const s3Address = (await s3.run()) as AddressInfo;
// S3 requests by class as AWS bills them: PUT, COPY, POST and LIST at one price, GET and the rest at another.
const s3Requests = { put: 0, get: 0 };
(s3 as unknown as { httpServer: import('node:http').Server }).httpServer.prependListener('request', (req: import('node:http').IncomingMessage) => {
  const listing = req.method === 'GET' && /[?&](list-type|prefix|delimiter)=/.test(req.url ?? '');
  if (req.method === 'PUT' || req.method === 'POST' || listing) s3Requests.put++;
  else s3Requests.get++;
});
const store: StoreConfig = {
  table: 'zero',
  bucket: 'zero',
  region: 'us-east-1',
  dynamoEndpoint: `http://127.0.0.1:${(dynamo.address() as AddressInfo).port}`,
  s3Endpoint: `http://127.0.0.1:${s3Address.port}`,
  credentials: LOCAL_CREDENTIALS,
};
await ensureTable(store);
await ensureBucket(store);
if (process.env.ZERO_BENCH_CLOUD === '1') {
  const dynamoPort = (dynamo.address() as AddressInfo).port;
  delayResponses((port) => (port === dynamoPort ? CLOUD_LATENCY.dynamodb : port === s3Address.port ? CLOUD_LATENCY.s3 : undefined));
}

process.on('message', (message: { id: number; cmd: string }) => {
  let result: unknown;
  if (message.cmd === 'stats') {
    const cpu = process.cpuUsage();
    result = { cpuMs: (cpu.user + cpu.system) / 1000 };
  } else if (message.cmd === 'requests') result = requests.snapshot();
  else if (message.cmd === 'resetRequests') {
    requests.reset();
    s3Requests.put = s3Requests.get = 0;
  } else if (message.cmd === 's3Requests') result = { ...s3Requests };
  process.send!({ id: message.id, result });
});
process.on('disconnect', () => {
  dynamo.close();
  void s3.close().finally(() => rm(dir, { recursive: true, force: true }).finally(() => process.exit(0)));
});
process.send!({ ready: { store } });
