/**
 * What one DynamoDB request costs Zero's process in CPU, by client:
 *
 *   npx tsx bench/dynamo-client.ts [--requests 2000]
 *
 * The same conditional PutItem (a log record of ~400 bytes) and Query are
 * sent through the AWS SDK v3 document client (what Zero uses) and through a
 * bare SigV4-signed fetch (aws4fetch, which SST already depends on), one at
 * a time and 50 at once, against dynalite in its own process. The figure is
 * the sending process's CPU per request: with the store in another process
 * it is what a Lambda pays per request, apart from the network.
 */
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { PutCommand, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AwsClient } from 'aws4fetch';
import { createDynamoClient, type StoreConfig } from '@zero/runtime/store/clients';
import { forkChild } from './support/child';
import { ms, table } from './support/stats';

const { values } = parseArgs({ options: { requests: { type: 'string', default: '2000' } } });
const N = Number(values.requests);
process.env.NODE_NO_WARNINGS = '1';
const stores = await forkChild<{ store: StoreConfig }>(join(import.meta.dirname, 'processes', 'stores.ts'));
const { store } = stores.ready;
const endpoint = store.dynamoEndpoint!;

const record = (seq: number) => ({
  pk: `SESSION#client-bench-${process.pid}`,
  sk: `LOG#${String(seq).padStart(12, '0')}`,
  v: 1,
  seq,
  kind: 'tool_result',
  run_id: 'run_00000000-0000-0000-0000-000000000000',
  tool_use_id: `toolu_${seq}`,
  name: 'get_weather',
  content: 'Lisbon: 18 °C, light rain. '.repeat(10),
});

const sdk = createDynamoClient(store);
const aws = new AwsClient({ ...store.credentials!, region: store.region ?? 'us-east-1', service: 'dynamodb' });
const marshal = (item: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(item).map(([k, v]) => [k, typeof v === 'number' ? { N: String(v) } : { S: String(v) }]));
async function raw(target: string, body: unknown) {
  const response = await aws.fetch(endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-amz-json-1.0', 'x-amz-target': `DynamoDB_20120810.${target}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`${target}: ${response.status} ${text}`);
  return JSON.parse(text) as unknown;
}

const clients = {
  'AWS SDK v3 document client': {
    put: (seq: number) => sdk.send(new PutCommand({ TableName: store.table, Item: record(seq), ConditionExpression: 'attribute_not_exists(pk)' })),
    query: () =>
      sdk.send(
        new QueryCommand({
          TableName: store.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
          ExpressionAttributeValues: { ':pk': record(0).pk, ':p': 'LOG#' },
          ScanIndexForward: false,
          Limit: 1,
        }),
      ),
  },
  'aws4fetch (SigV4 + fetch)': {
    put: (seq: number) => raw('PutItem', { TableName: store.table, Item: marshal(record(seq)), ConditionExpression: 'attribute_not_exists(pk)' }),
    query: () =>
      raw('Query', {
        TableName: store.table,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :p)',
        ExpressionAttributeValues: { ':pk': { S: record(0).pk }, ':p': { S: 'LOG#' } },
        ScanIndexForward: false,
        Limit: 1,
      }),
  },
};

/** CPU (this process) and wall per request over n requests, `parallel` at a time. */
async function measure(send: (i: number) => Promise<unknown>, n: number, parallel: number) {
  let next = 0;
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: parallel }, async () => {
      while (next < n) await send(next++);
    }),
  );
  const cpu = process.cpuUsage(cpu0);
  return { cpuMs: (cpu.user + cpu.system) / 1000 / n, wallMs: (performance.now() - t0) / n };
}

let base = 1;
const rows: (string | number)[][] = [];
try {
  for (const parallel of [1, 50]) {
    for (const [name, client] of Object.entries(clients)) {
      // Warm up connections and code paths, then measure in fresh key ranges.
      await measure((i) => client.put(base + i), 200, parallel);
      base += 200;
      const put = await measure((i) => client.put(base + i), N, parallel);
      base += N;
      const query = await measure(() => client.query(), N, parallel);
      rows.push([name, parallel, ms(put.cpuMs, 3), ms(put.wallMs, 3), ms(query.cpuMs, 3), ms(query.wallMs, 3)]);
    }
  }
  console.log(table(`DynamoDB client cost per request (${N} requests each, dynalite in another process; ms)`, ['client', 'in flight', 'PutItem cpu', 'PutItem wall', 'Query cpu', 'Query wall'], rows));
} finally {
  await stores.stop();
}
