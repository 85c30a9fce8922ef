import type * as z from 'zod';
import { notFound } from '@zero/agent/errors';
import { log } from '@zero/agent/log/log';
import type { ArtifactStore } from './artifact-store';

/** What every item of a collection carries besides its own fields. */
export interface Stamped {
  created_at: string;
  updated_at: string;
}

export interface JsonCollectionOptions<Item extends Stamped> {
  /** The folder in the bucket, with its slash: `hooks/`. Each item is `<prefix><id>.json`. */
  prefix: string;
  /** The ids this collection accepts; a malformed id reads as absent and is never used as a key. */
  id: z.ZodType<string>;
  /** The stored shape. An object that fails it is logged and reads as absent, never as a 500. */
  item: z.ZodType<Item>;
  /** Named in logs and in the 404: `webhook`, `schedule`. */
  noun: string;
  /** The request field a 404 names: `hook_id`. */
  field: string;
  /** How long `list()` is kept (an instance sees its own changes at once, another's within this time); absent: not kept. */
  cacheMs?: number;
}

/**
 * One JSON object per id under a prefix of the bucket: the stores administrators manage (webhooks,
 * schedules, subscriptions, MCP servers). Reads validate with the item's schema; `put` stamps
 * `created_at` (kept from the item it replaces) and `updated_at`.
 *
 * Last writer wins: S3 has no conditional put here, and these are configurations an administrator
 * edits, not counters. Listing is one LIST and a GET per item, in key order.
 */
export class JsonCollection<Item extends Stamped> {
  private cached?: { at: number; list: Promise<Item[]> };

  constructor(
    private readonly artifacts: ArtifactStore,
    private readonly options: JsonCollectionOptions<Item>,
  ) {}

  private keyOf(id: string): string {
    return `${this.options.prefix}${this.options.id.parse(id)}.json`;
  }

  async get(id: string): Promise<Item | undefined> {
    if (!this.options.id.safeParse(id).success) return undefined;
    const value = await this.artifacts.getJson(this.keyOf(id));
    if (value === undefined) return undefined;
    const parsed = this.options.item.safeParse(value);
    if (!parsed.success) {
      log.error(`unreadable ${this.options.noun}`, { id, error: parsed.error.message });
      return undefined;
    }
    return parsed.data;
  }

  /** The item, or a 404 naming it (the same for a malformed id and one that does not exist). */
  async require(id: string): Promise<Item> {
    const item = await this.get(id);
    if (!item) throw notFound(`no ${this.options.noun} "${id}"`, this.options.field);
    return item;
  }

  /**
   * Creates or replaces the item `build` makes from its timestamps (`created_at` kept from the one it
   * replaces); returns it and whether it is new.
   */
  async put(id: string, build: (stamps: Stamped) => Item): Promise<{ item: Item; created: boolean }> {
    const existing = await this.get(id);
    const now = new Date().toISOString();
    const item = build({ created_at: existing?.created_at ?? now, updated_at: now });
    await this.write(id, item);
    return { item, created: !existing };
  }

  /** Writes an item read earlier back with its own changes (a schedule pausing itself), stamping `updated_at`. */
  async save(id: string, item: Item): Promise<void> {
    await this.write(id, { ...item, updated_at: new Date().toISOString() });
  }

  async list(): Promise<Item[]> {
    const { cacheMs } = this.options;
    if (cacheMs && this.cached && Date.now() - this.cached.at < cacheMs) return this.cached.list;
    const { prefix } = this.options;
    const list = this.artifacts.list(prefix).then(async (objects) => {
      const ids = objects.map((o) => o.key.slice(prefix.length).replace(/\.json$/, ''));
      const items = await Promise.all(ids.map((id) => this.get(id)));
      return items.filter((item) => item !== undefined);
    });
    if (cacheMs) {
      this.cached = { at: Date.now(), list };
      list.catch(() => (this.cached = undefined));
    }
    return list;
  }

  /** Deletes the item; false when there was none. */
  async delete(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false;
    await this.artifacts.delete(this.keyOf(id));
    this.cached = undefined;
    return true;
  }

  private async write(id: string, item: Item): Promise<void> {
    await this.artifacts.putJson(this.keyOf(id), item);
    this.cached = undefined;
  }
}
