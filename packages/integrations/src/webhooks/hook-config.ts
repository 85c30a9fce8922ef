import * as z from 'zod';
import { hookIdSchema, hookInputSchema } from '@zero/agent/wire';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { JsonCollection } from '@zero/runtime/store/json-collection';

/** A hook as stored in S3, `hooks/<id>.json`. */
export const hookConfigSchema = hookInputSchema.extend({
  v: z.literal(1),
  id: hookIdSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type HookConfig = z.infer<typeof hookConfigSchema>;

/** Webhook configurations in the bucket, one object per hook (`hooks/<id>.json`). */
export class HookStore {
  private readonly hooks: JsonCollection<HookConfig>;

  constructor(artifacts: ArtifactStore) {
    this.hooks = new JsonCollection(artifacts, { prefix: 'hooks/', id: hookIdSchema, item: hookConfigSchema, noun: 'webhook', field: 'hook_id' });
  }

  get(id: string): Promise<HookConfig | undefined> {
    return this.hooks.get(id);
  }

  /** Loads a hook or fails with a 404 (the same for an id that is malformed and one that does not exist). */
  require(id: string): Promise<HookConfig> {
    return this.hooks.require(id);
  }

  /** Creates or replaces a hook; returns it and whether it is new. */
  async put(id: string, input: z.output<typeof hookInputSchema>): Promise<{ hook: HookConfig; created: boolean }> {
    const { item, created } = await this.hooks.put(id, (stamps) => ({ v: 1, id, ...input, ...stamps }));
    return { hook: item, created };
  }

  list(): Promise<HookConfig[]> {
    return this.hooks.list();
  }

  delete(id: string): Promise<boolean> {
    return this.hooks.delete(id);
  }
}
