import type { IncomingMessage, ServerResponse } from 'node:http';

/** DynamoDB operations that change the table; every other operation only reads. */
const WRITE_OPERATIONS = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems']);

/** One kind of request as the table saw it: operation, item type, and whether its condition failed. */
export interface RequestCount {
  operation: string;
  write: boolean;
  /** The item type: the sort key's prefix (`LOG`, `EVT`, `LEASE`, `META`, …), or the index queried. */
  item: string;
  /** Requests refused with ConditionalCheckFailedException (they still cost a write). */
  conditionFailed: boolean;
  count: number;
  /** Bytes of the emulator's answers (what a read brings back: items, pages of a query). */
  bytes: number;
}

/**
 * Counts the requests a DynamoDB emulator serves, by operation (the
 * `X-Amz-Target` header) and item type (from the body's key), as AWS would
 * bill them. It listens beside the emulator's own handler, reading the same
 * body, so the emulator answers exactly as it would without it.
 */
export class DynamoRequestCounter {
  private readonly counts = new Map<string, RequestCount>();

  /** Observes one request; call before the emulator's handler sees it. */
  observe = (req: IncomingMessage, res: ServerResponse): void => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.')[1];
    if (!operation) return;
    const chunks: Buffer[] = [];
    let answered = 0;
    // The answer's bytes, counted as the emulator writes them.
    const write = res.write.bind(res) as (chunk: unknown, ...rest: unknown[]) => boolean;
    const end = res.end.bind(res) as (chunk?: unknown, ...rest: unknown[]) => ServerResponse;
    const sizeOf = (chunk: unknown) => (typeof chunk === 'string' ? Buffer.byteLength(chunk) : chunk instanceof Uint8Array ? chunk.byteLength : 0);
    res.write = ((chunk: unknown, ...rest: unknown[]) => {
      answered += sizeOf(chunk);
      return write(chunk, ...rest);
    }) as typeof res.write;
    res.end = ((chunk?: unknown, ...rest: unknown[]) => {
      if (typeof chunk !== 'function') answered += sizeOf(chunk);
      return end(chunk, ...rest);
    }) as typeof res.end;
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      let body: DynamoBody = {};
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as DynamoBody;
      } catch {
        // The emulator answers a body that is not JSON with its own error; count it under no item type.
      }
      const item = itemTypeOf(body);
      res.once('finish', () => {
        // The emulator answers a failed condition with a 400 and its type in the body; 400 here means that for every write we send.
        const conditionFailed = WRITE_OPERATIONS.has(operation) && res.statusCode === 400;
        const key = `${operation}|${item}|${conditionFailed}`;
        const entry = this.counts.get(key) ?? { operation, write: WRITE_OPERATIONS.has(operation), item, conditionFailed, count: 0, bytes: 0 };
        entry.count += 1;
        entry.bytes += answered;
        this.counts.set(key, entry);
      });
    });
  };

  snapshot(): RequestCount[] {
    return [...this.counts.values()].map((entry) => ({ ...entry }));
  }

  reset(): void {
    this.counts.clear();
  }
}

interface DynamoBody {
  Key?: Record<string, { S?: string }>;
  Item?: Record<string, { S?: string }>;
  IndexName?: string;
  ExpressionAttributeValues?: Record<string, { S?: string }>;
  RequestItems?: Record<string, { PutRequest?: { Item: DynamoBody['Item'] }; DeleteRequest?: { Key: DynamoBody['Key'] } }[]>;
}

/** The item type a request touches: the prefix of its sort key (`LOG#000…` → `LOG`), for a query the prefix it ranges over. */
export function itemTypeOf(body: DynamoBody): string {
  const sk = body.Key?.sk?.S ?? body.Item?.sk?.S;
  if (sk !== undefined) return prefix(sk);
  if (body.IndexName) return `index ${body.IndexName}`;
  if (body.RequestItems) {
    const first = Object.values(body.RequestItems)[0]?.[0];
    const key = first?.PutRequest?.Item?.sk?.S ?? first?.DeleteRequest?.Key?.sk?.S;
    return key === undefined ? 'batch' : `batch ${prefix(key)}`;
  }
  // A query: the sort-key bound among its values (the partition key is the one with a `SESSION#`, `USER#`… value of its own).
  const values = Object.values(body.ExpressionAttributeValues ?? {}).flatMap((v) => (typeof v.S === 'string' ? [v.S] : []));
  const bound = values.find((v) => /^[A-Z]+#/.test(v) && !/^(SESSION|USER|HOOK|WEBHOOK)#/.test(v)) ?? values.find((v) => !v.includes('#'));
  return bound === undefined ? 'other' : prefix(bound);
}

const prefix = (sortKey: string) => sortKey.split('#')[0]!;
