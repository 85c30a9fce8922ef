import type { AddressInfo } from 'node:net';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import dynalite from 'dynalite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDynamoClient, type StoreConfig } from '@zero/runtime/store/clients';
import { DynamoRequestCounter } from '../bench/support/dynamo-requests';
import { LOCAL_CREDENTIALS, ensureTable } from '../local/stack';

/** `npm run bench`'s writes-per-step figure rests on this count: every request dynalite serves, by operation and item type. */
describe('the bench counts DynamoDB requests where dynalite serves them', () => {
  const counter = new DynamoRequestCounter();
  const server = dynalite({ createTableMs: 0 });
  server.prependListener('request', counter.observe);
  let store: StoreConfig;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    store = {
      table: 'zero',
      bucket: 'unused',
      region: 'us-east-1',
      dynamoEndpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      credentials: LOCAL_CREDENTIALS,
    };
    await ensureTable(store);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('splits writes from reads, names the item type from the key, and counts a refused condition apart', async () => {
    const db = createDynamoClient(store);
    const record = { pk: 'SESSION#s1', sk: 'LOG#000000000001', kind: 'assistant' };
    counter.reset();
    await db.send(new PutCommand({ TableName: store.table, Item: record, ConditionExpression: 'attribute_not_exists(pk)' }));
    await expect(db.send(new PutCommand({ TableName: store.table, Item: record, ConditionExpression: 'attribute_not_exists(pk)' }))).rejects.toThrow();
    await db.send(
      new UpdateCommand({ TableName: store.table, Key: { pk: 'SESSION#s1', sk: 'LEASE' }, UpdateExpression: 'SET next_log = :n', ExpressionAttributeValues: { ':n': 4 } }),
    );
    await db.send(new GetCommand({ TableName: store.table, Key: { pk: 'SESSION#s1', sk: 'META' } }));
    await db.send(
      new QueryCommand({
        TableName: store.table,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: { ':pk': 'SESSION#s1', ':from': 'INBOX#000000000000', ':to': 'INBOX#~' },
      }),
    );
    const counted = counter.snapshot().map(({ operation, write, item, conditionFailed, count }) => `${operation} ${write ? 'write' : 'read'} ${item}${conditionFailed ? ' refused' : ''} ×${count}`);
    expect(counted.sort()).toEqual(['GetItem read META ×1', 'PutItem write LOG refused ×1', 'PutItem write LOG ×1', 'Query read INBOX ×1', 'UpdateItem write LEASE ×1']);
  });
});
