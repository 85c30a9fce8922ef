import * as z from 'zod';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { JsonCollection } from '@zero/runtime/store/json-collection';
import { hookIdSchema, subscriptionInputSchema } from '@zero/agent/wire';

/** A subscription as stored in S3, `subscriptions/<id>.json`. */
export const subscriptionConfigSchema = subscriptionInputSchema.extend({
  v: z.literal(1),
  id: hookIdSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type Subscription = z.infer<typeof subscriptionConfigSchema>;

/**
 * Subscriptions in the bucket, one object per subscription (`subscriptions/<id>.json`). Every event
 * reads the list, so it is kept for `cacheMs` (another instance's change is seen within that time;
 * this instance's at once).
 */
export class SubscriptionStore {
  private readonly subscriptions: JsonCollection<Subscription>;

  constructor(artifacts: ArtifactStore, cacheMs = 10_000) {
    this.subscriptions = new JsonCollection(artifacts, { prefix: 'subscriptions/', id: hookIdSchema, item: subscriptionConfigSchema, noun: 'subscription', field: 'subscription_id', cacheMs });
  }

  get(id: string): Promise<Subscription | undefined> {
    return this.subscriptions.get(id);
  }

  require(id: string): Promise<Subscription> {
    return this.subscriptions.require(id);
  }

  async put(id: string, input: z.output<typeof subscriptionInputSchema>): Promise<{ subscription: Subscription; created: boolean }> {
    const { item, created } = await this.subscriptions.put(id, (stamps) => ({ v: 1, id, ...input, ...stamps }));
    return { subscription: item, created };
  }

  delete(id: string): Promise<boolean> {
    return this.subscriptions.delete(id);
  }

  /** Every subscription by id; one LIST and a GET each, at most once per `cacheMs`. */
  async list(): Promise<Subscription[]> {
    return [...(await this.subscriptions.list())].sort((a, b) => a.id.localeCompare(b.id));
  }
}
