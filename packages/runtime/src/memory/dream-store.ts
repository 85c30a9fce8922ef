import { randomBytes } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { notFound } from '@zero/agent/errors';
import { dreamItem, dreamSchema, type Dream, type DreamStatus } from '../store/items/dream';
import { keys } from '../store/keys';
import { Table } from '../store/table';

const DREAM_ID = /^drm_[a-z0-9]{24}$/;
const random = (n: number) => [...randomBytes(n)].map((b) => 'abcdefghijklmnopqrstuvwxyz0123456789'[b % 36]).join('');
/** A new dream id (`drm_…`). */
export const newDreamId = () => `drm_${random(24)}`;

/** A claim of a running dream older than this is taken to have died with its process: a redelivered job takes it over. */
export const DREAM_STALE_MS = 20 * 60_000;

/**
 * Each user's dreams, in the table under the user's partition: another user's dream is not found.
 * Every status change is one conditional write on the status it leaves.
 */
export class DreamStore {
  private readonly table: Table;

  constructor(db: DynamoDBDocumentClient, tableName: string) {
    this.table = new Table(db, tableName);
  }

  async create(dream: Dream): Promise<void> {
    await this.table.putNew({ ...keys.dream(dream.owner, dream.id), v: dreamItem.version, ...dreamSchema.parse(dream) });
  }

  async get(owner: string, id: string): Promise<Dream | undefined> {
    if (!DREAM_ID.test(id)) return undefined;
    const item = await this.table.get(keys.dream(owner, id), { consistent: true });
    return item ? dreamItem.decode(item) : undefined;
  }

  /** The owner's dream, or a 404 (also for another user's: nobody learns it exists). */
  async reach(owner: string, id: string): Promise<Dream> {
    const dream = await this.get(owner, id);
    if (!dream) throw notFound(`no dream "${id}"`);
    return dream;
  }

  /** The owner's dreams, newest first. */
  async list(owner: string): Promise<Dream[]> {
    const items = await this.table.query({ pk: keys.userPartition(owner), prefix: keys.dreamPrefix, consistent: true });
    return items.map((item) => dreamItem.decode(item)).sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  }

  /**
   * Sets `changes` when the dream's status is one of `from` (and, with `staleBefore`, a `running` one
   * only if claimed before then): the dream after it, or undefined when the condition did not hold.
   */
  async transition(dream: Pick<Dream, 'owner' | 'id'>, from: readonly DreamStatus[], changes: Partial<Omit<Dream, 'id' | 'owner'>>, options: { staleBefore?: string } = {}): Promise<Dream | undefined> {
    const entries = Object.entries(changes);
    const names: Record<string, string> = { '#status': 'status' };
    const values: Record<string, unknown> = {};
    const sets = entries.map(([name, value], i) => {
      names[`#a${i}`] = name;
      values[`:a${i}`] = value;
      return `#a${i} = :a${i}`;
    });
    const allowed = from.map((status, i) => {
      values[`:from${i}`] = status;
      return status === 'running' && options.staleBefore ? `#status = :from${i} AND started_at < :stale` : `#status = :from${i}`;
    });
    // DynamoDB refuses redundant parentheses: a clause with AND is wrapped only beside others.
    const statusCondition = allowed.length === 1 ? allowed[0] : `(${allowed.map((clause) => (clause.includes(' AND ') ? `(${clause})` : clause)).join(' OR ')})`;
    if (options.staleBefore) values[':stale'] = options.staleBefore;
    const updated = await this.table.update(keys.dream(dream.owner, dream.id), {
      set: `SET ${sets.join(', ')}`,
      condition: `attribute_exists(pk) AND ${statusCondition}`,
      names,
      values,
      returns: 'ALL_NEW',
    });
    return updated ? dreamItem.decode(updated) : undefined;
  }
}
