import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import * as z from 'zod';
import { keys } from './keys';
import { isConditionFailure } from './session-store';

/**
 * `PROJECT#<id>` / `REPORT#<path>`: the session that wrote a report of the
 * project. A report is as private as its session: only that session's
 * members read it, and only that session writes it again.
 */
export const reportOwnerSchema = z.object({
  v: z.literal(1),
  project_id: z.string(),
  path: z.string(),
  session_id: z.string(),
  at: z.string(),
});
export type ReportOwner = z.infer<typeof reportOwnerSchema>;

/** Which session owns each report of a project; written before the report itself. */
export class ReportOwnerStore {
  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly table: string,
  ) {}

  /**
   * Claims `path` for the session: true when it is now the session's (it was
   * free or already theirs), false when another session owns it. `takeOver`
   * reassigns it whatever it was (the webhook report of a session, written by
   * Zero itself, replaces whatever another session put at its path).
   */
  async claim(projectId: string, path: string, sessionId: string, options: { takeOver?: boolean } = {}): Promise<boolean> {
    const item: ReportOwner = { v: 1, project_id: projectId, path, session_id: sessionId, at: new Date().toISOString() };
    try {
      await this.db.send(
        new PutCommand({
          TableName: this.table,
          Item: { pk: keys.project(projectId), sk: keys.report(path), ...item },
          ...(options.takeOver
            ? {}
            : { ConditionExpression: 'attribute_not_exists(pk) OR session_id = :s', ExpressionAttributeValues: { ':s': sessionId } }),
        }),
      );
      return true;
    } catch (error) {
      if (isConditionFailure(error)) return false;
      throw error;
    }
  }

  async owner(projectId: string, path: string): Promise<ReportOwner | undefined> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.table, Key: { pk: keys.project(projectId), sk: keys.report(path) } }));
    return Item ? reportOwnerSchema.parse(Item) : undefined;
  }

  /** Every report's owning session, by path. */
  async owners(projectId: string): Promise<Map<string, string>> {
    const out = new Map<string, string>();
    let start: Record<string, unknown> | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.table,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :r)',
          ExpressionAttributeValues: { ':pk': keys.project(projectId), ':r': 'REPORT#' },
          ExclusiveStartKey: start,
        }),
      );
      for (const item of page.Items ?? []) {
        const parsed = reportOwnerSchema.safeParse(item);
        if (parsed.success) out.set(parsed.data.path, parsed.data.session_id);
      }
      start = page.LastEvaluatedKey;
    } while (start);
    return out;
  }
}
