import * as z from 'zod';
import { notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { hookIdSchema, subscriptionInputSchema } from '@zero/agent/wire';

/** A subscription as stored in S3, `subscriptions/<id>.json`. */
export const subscriptionConfigSchema = subscriptionInputSchema.extend({
  v: z.literal(1),
  id: hookIdSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type Subscription = z.infer<typeof subscriptionConfigSchema>;

const PREFIX = 'subscriptions/';
const keyOf = (id: string) => `${PREFIX}${hookIdSchema.parse(id)}.json`;

/**
 * Subscriptions in the bucket, one object per subscription. Every event
 * reads the list, so it is kept for `cacheMs` (another instance's change is
 * seen within that time; this instance's at once).
 */
export class SubscriptionStore {
  private cached?: { at: number; list: Promise<Subscription[]> };

  constructor(
    private readonly artifacts: ArtifactStore,
    private readonly cacheMs = 10_000,
  ) {}

  async get(id: string): Promise<Subscription | undefined> {
    if (!hookIdSchema.safeParse(id).success) return undefined;
    const parsed = subscriptionConfigSchema.safeParse(await this.artifacts.getJson(keyOf(id)));
    return parsed.success ? parsed.data : undefined;
  }

  async require(id: string): Promise<Subscription> {
    const found = await this.get(id);
    if (!found) throw notFound(`no subscription "${id}"`, 'subscription_id');
    return found;
  }

  async put(id: string, input: z.output<typeof subscriptionInputSchema>): Promise<{ subscription: Subscription; created: boolean }> {
    const existing = await this.get(id);
    const now = new Date().toISOString();
    const subscription: Subscription = { v: 1, id, ...input, created_at: existing?.created_at ?? now, updated_at: now };
    await this.artifacts.putJson(keyOf(id), subscription);
    this.cached = undefined;
    return { subscription, created: !existing };
  }

  async delete(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false;
    await this.artifacts.delete(keyOf(id));
    this.cached = undefined;
    return true;
  }

  /** Every subscription; one LIST and a GET each, at most once per `cacheMs`. */
  list(): Promise<Subscription[]> {
    if (this.cached && Date.now() - this.cached.at < this.cacheMs) return this.cached.list;
    const list = this.artifacts.list(PREFIX).then(async (objects) => {
      const all = await Promise.all(objects.map((o) => this.get(o.key.slice(PREFIX.length).replace(/\.json$/, ''))));
      return all.filter((s) => s !== undefined).sort((a, b) => a.id.localeCompare(b.id));
    });
    this.cached = { at: Date.now(), list };
    list.catch(() => (this.cached = undefined));
    return list;
  }
}
