import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import {
  BatchWriteCommand,
  DeleteCommand,
  GetCommand,
  PutCommand,
  QueryCommand,
  UpdateCommand,
  type DynamoDBDocumentClient,
} from '@aws-sdk/lib-dynamodb';
import type { ArtifactStore } from './artifact-store';
import type { ItemKey } from './stored-item';

export type Item = Record<string, unknown>;

/** What a store has written, for benchmarks and the growth check. */
export interface WriteStats {
  writes: number;
  bytes: number;
}

/** A condition on a write, with its placeholders. */
export interface Condition {
  expression: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
}

/** An update: a DynamoDB update expression, optionally conditional, and the attributes to return. */
export interface Update {
  set: string;
  condition?: string;
  names?: Record<string, string>;
  values?: Record<string, unknown>;
  returns?: 'ALL_OLD' | 'ALL_NEW' | 'UPDATED_NEW';
}

/** The items of one partition of the table or of index `gsi1`, by sort-key prefix or range. */
export interface ItemQuery {
  pk: string;
  index?: 'gsi1';
  prefix?: string;
  between?: [string, string];
  /** At most this many items (over as many pages as it takes). */
  limit?: number;
  newestFirst?: boolean;
  projection?: string;
  consistent?: boolean;
}

/** True when DynamoDB refused a write because its condition did not hold. The one place that recognises it. */
export const isConditionFailure = (error: unknown) =>
  error instanceof ConditionalCheckFailedException || (error as { name?: string })?.name === 'ConditionalCheckFailedException';

/** Runs a conditional write: true when written, false when its condition did not hold; any other failure is thrown. */
export async function conditionally(write: Promise<unknown>): Promise<boolean> {
  try {
    await write;
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/**
 * The single table as the stores use it: gets, conditional puts, updates and
 * deletes of one item each (no transactions: the local server has none), and
 * queries paged to the end. Counts the puts and updates it sends.
 */
export class Table {
  readonly stats: WriteStats = { writes: 0, bytes: 0 };

  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly name: string,
  ) {}

  async get(key: ItemKey, options: { consistent?: boolean } = {}): Promise<Item | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.name, Key: key, ...(options.consistent ? { ConsistentRead: true } : {}) }));
    return Item;
  }

  /** Writes an item; with a condition, only when it holds. False when it did not. */
  async put(item: Item & ItemKey, condition?: Condition): Promise<boolean> {
    this.count(item);
    return conditionally(
      this.db.send(
        new PutCommand({
          TableName: this.name,
          Item: item,
          ...(condition ? { ConditionExpression: condition.expression } : {}),
          ...(condition?.names ? { ExpressionAttributeNames: condition.names } : {}),
          ...(condition?.values ? { ExpressionAttributeValues: condition.values } : {}),
        }),
      ),
    );
  }

  /** Writes an item unless one with its key exists. False when one did. */
  putNew(item: Item & ItemKey): Promise<boolean> {
    return this.put(item, { expression: 'attribute_not_exists(pk)' });
  }

  /** Updates an item: the attributes asked for (`{}` when none), or undefined when the condition did not hold. */
  async update(key: ItemKey, update: Update): Promise<Item | undefined> {
    const names = update.names ?? {};
    const values = update.values ?? {};
    this.count({ ...key, ...values });
    let attributes: Item = {};
    const written = await conditionally(
      this.db
        .send(
          new UpdateCommand({
            TableName: this.name,
            Key: key,
            UpdateExpression: update.set,
            ...(update.condition ? { ConditionExpression: update.condition } : {}),
            ...(Object.keys(names).length ? { ExpressionAttributeNames: names } : {}),
            ...(Object.keys(values).length ? { ExpressionAttributeValues: values } : {}),
            ...(update.returns ? { ReturnValues: update.returns } : {}),
          }),
        )
        .then((out) => (attributes = out.Attributes ?? {})),
    );
    return written ? attributes : undefined;
  }

  /** Deletes an item; with a condition, only when it holds. False when it did not. */
  async delete(key: ItemKey, condition?: Condition): Promise<boolean> {
    return conditionally(
      this.db.send(
        new DeleteCommand({
          TableName: this.name,
          Key: key,
          ...(condition ? { ConditionExpression: condition.expression } : {}),
          ...(condition?.names ? { ExpressionAttributeNames: condition.names } : {}),
          ...(condition?.values ? { ExpressionAttributeValues: condition.values } : {}),
        }),
      ),
    );
  }

  /** One page of a query, and where the next one starts. */
  async queryPage(query: ItemQuery, start?: Item): Promise<{ items: Item[]; next?: Item }> {
    const pk = query.index ? 'gsi1pk' : 'pk';
    const sk = query.index ? 'gsi1sk' : 'sk';
    const range = query.prefix !== undefined ? ` AND begins_with(${sk}, :prefix)` : query.between ? ` AND ${sk} BETWEEN :from AND :to` : '';
    const page = await this.db.send(
      new QueryCommand({
        TableName: this.name,
        IndexName: query.index,
        KeyConditionExpression: `${pk} = :pk${range}`,
        ExpressionAttributeValues: {
          ':pk': query.pk,
          ...(query.prefix !== undefined ? { ':prefix': query.prefix } : {}),
          ...(query.between ? { ':from': query.between[0], ':to': query.between[1] } : {}),
        },
        ...(query.newestFirst ? { ScanIndexForward: false } : {}),
        ...(query.limit ? { Limit: query.limit } : {}),
        ...(query.projection ? { ProjectionExpression: query.projection } : {}),
        ...(query.consistent ? { ConsistentRead: true } : {}),
        ExclusiveStartKey: start,
      }),
    );
    return { items: (page.Items ?? []) as Item[], next: page.LastEvaluatedKey };
  }

  /** Every item a query matches, up to its limit, page after page. */
  async query(query: ItemQuery): Promise<Item[]> {
    const out: Item[] = [];
    let start: Item | undefined;
    do {
      const page = await this.queryPage(query.limit ? { ...query, limit: query.limit - out.length } : query, start);
      out.push(...page.items);
      start = page.next;
    } while (start && (!query.limit || out.length < query.limit));
    return out;
  }

  /** Deletes items by key, 25 a request, retrying what DynamoDB left unprocessed. */
  async deleteAll(items: ItemKey[]): Promise<void> {
    for (let i = 0; i < items.length; i += 25) {
      let requests = items.slice(i, i + 25).map((item) => ({ DeleteRequest: { Key: { pk: item.pk, sk: item.sk } } }));
      for (let attempt = 0; requests.length > 0 && attempt < 8; attempt++) {
        const result = await this.db.send(new BatchWriteCommand({ RequestItems: { [this.name]: requests } }));
        requests = (result.UnprocessedItems?.[this.name] ?? []) as typeof requests;
        if (requests.length) await new Promise((r) => setTimeout(r, 50 * 2 ** attempt));
      }
    }
  }

  /** Counts a write (approximate item size: its JSON). */
  count(item: Item) {
    this.stats.writes += 1;
    this.stats.bytes += Buffer.byteLength(JSON.stringify(item));
  }
}

/** Items over this size go to S3 and the table keeps a pointer (DynamoDB's limit is 400 KB). */
export const OFFLOAD_BYTES = 300_000;

/**
 * The item to write for `body`: the body itself under its key when small;
 * otherwise the body goes to S3 at `objectKey` first and the item is
 * `pointer` (the attributes queries need) with `offload` naming the object.
 */
export async function offloadIfLarge(objects: ArtifactStore, key: ItemKey, body: Item, pointer: Item, objectKey: string): Promise<Item & ItemKey> {
  const json = JSON.stringify(body);
  if (Buffer.byteLength(json) <= OFFLOAD_BYTES) return { ...key, ...body };
  await objects.put(objectKey, json, 'application/json');
  return { ...key, ...pointer, offload: objectKey };
}

/** An item's body: the item itself, or the object its `offload` attribute names (undefined when that object is gone). */
export async function loadOffloaded(objects: ArtifactStore, item: Item): Promise<Item | undefined> {
  return typeof item.offload === 'string' ? await objects.getJson<Item>(item.offload) : item;
}
