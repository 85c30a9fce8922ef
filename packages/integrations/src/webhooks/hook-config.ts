import * as z from 'zod';
import { hookIdSchema, hookInputSchema } from '@zero/agent/wire';
import { ZeroError, notFound } from '@zero/agent/errors';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { log } from '@zero/agent/log/log';

/** A hook as stored in S3, `hooks/<id>.json`. */
export const hookConfigSchema = hookInputSchema.extend({
  v: z.literal(1),
  id: hookIdSchema,
  created_at: z.string(),
  updated_at: z.string(),
});
export type HookConfig = z.infer<typeof hookConfigSchema>;

const HOOKS_PREFIX = 'hooks/';
const keyOf = (id: string) => `${HOOKS_PREFIX}${hookIdSchema.parse(id)}.json`;

/** Webhook configurations in the bucket, one object per hook. */
export class HookStore {
  constructor(private readonly artifacts: ArtifactStore) {}

  async get(id: string): Promise<HookConfig | undefined> {
    if (!hookIdSchema.safeParse(id).success) return undefined;
    const value = await this.artifacts.getJson(keyOf(id));
    if (value === undefined) return undefined;
    const parsed = hookConfigSchema.safeParse(value);
    if (!parsed.success) {
      log.error('unreadable hook configuration', { hook_id: id, error: parsed.error.message });
      return undefined;
    }
    return parsed.data;
  }

  /** Loads a hook or fails with a 404 (the same for an id that is malformed and one that does not exist). */
  async require(id: string): Promise<HookConfig> {
    const hook = await this.get(id);
    if (!hook) throw notFound(`no webhook "${id}"`, 'hook_id');
    return hook;
  }

  /** Creates or replaces a hook; returns it and whether it is new. */
  async put(id: string, input: z.output<typeof hookInputSchema>): Promise<{ hook: HookConfig; created: boolean }> {
    const existing = await this.get(id);
    const now = new Date().toISOString();
    const hook: HookConfig = { v: 1, id, ...input, created_at: existing?.created_at ?? now, updated_at: now };
    await this.artifacts.putJson(keyOf(id), hook);
    return { hook, created: !existing };
  }

  async list(): Promise<HookConfig[]> {
    const objects = await this.artifacts.list(HOOKS_PREFIX);
    const hooks = await Promise.all(objects.map((o) => this.get(o.key.slice(HOOKS_PREFIX.length).replace(/\.json$/, ''))));
    return hooks.filter((h) => h !== undefined);
  }

  async delete(id: string): Promise<boolean> {
    if (!(await this.get(id))) return false;
    await this.artifacts.deletePrefix(keyOf(id));
    return true;
  }
}
