import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { reportOwnerItem, reportOwnerKey, reportOwnerPrefix, type ReportOwner } from './items/report-owner';
import { keys } from './keys';
import { Table } from './table';

/** Which session owns each report of a project; written before the report itself. */
export class ReportOwnerStore {
  private readonly items: Table;

  constructor(
    readonly db: DynamoDBDocumentClient,
    readonly table: string,
  ) {
    this.items = new Table(db, table);
  }

  /**
   * Claims `path` for the session: true when it is now the session's (it was
   * free or already theirs), false when another session owns it. `takeOver`
   * reassigns it whatever it was (the webhook report of a session, written by
   * Zero itself, replaces whatever another session put at its path).
   */
  async claim(projectId: string, path: string, sessionId: string, options: { takeOver?: boolean } = {}): Promise<boolean> {
    const owner: ReportOwner = { v: 1, project_id: projectId, path, session_id: sessionId, at: new Date().toISOString() };
    return this.items.put(
      { ...reportOwnerKey(projectId, path), ...owner },
      options.takeOver ? undefined : { expression: 'attribute_not_exists(pk) OR session_id = :s', values: { ':s': sessionId } },
    );
  }

  async owner(projectId: string, path: string): Promise<ReportOwner | undefined> {
    const item = await this.items.get(reportOwnerKey(projectId, path));
    return item && reportOwnerItem.decode(item);
  }

  /** Every report's owning session, by path. */
  async owners(projectId: string): Promise<Map<string, string>> {
    const items = await this.items.query({ pk: keys.project(projectId), prefix: reportOwnerPrefix });
    return new Map(items.map((item) => reportOwnerItem.decode(item)).map((owner) => [owner.path, owner.session_id]));
  }
}
