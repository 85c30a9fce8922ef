import * as z from 'zod';
import { userIdSchema } from '../events/schema';
import { notFound } from '../errors';
import { roleSchema } from '../store/records';
import type { ArtifactStore } from '../store/artifact-store';

/** A hook id: lower-case letters, digits and dashes, used in the URL `/api/v2/webhooks/<id>`. */
export const hookIdSchema = z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be lower-case letters, digits and dashes (at most 63)');

/**
 * Where a hook's secret lives: the name of an environment variable of the
 * API function (in AWS, set from an SST secret). The secret itself is never
 * stored in S3. Only names under `ZERO_WEBHOOK_SECRET_` are accepted, so a
 * hook cannot be pointed at the process's other credentials.
 */
export const secretRefSchema = z
  .string()
  .regex(/^ZERO_WEBHOOK_SECRET_[A-Z0-9_]{1,100}$/, 'must name an environment variable starting with ZERO_WEBHOOK_SECRET_');

/** An accepted event: `pull_request` (every action), `pull_request.opened` (one action), or `*`. */
const eventSchema = z.string().regex(/^(\*|[a-z0-9_-]{1,64}(\.[a-z0-9_-]{1,64})?)$/, 'must look like "pull_request" or "pull_request.opened" or be "*"');

/** A hook as an administrator sends it (`PUT /api/v2/hooks/:hook_id`). */
export const hookInputSchema = z.strictObject({
  source: z.enum(['github', 'generic']),
  secret_ref: secretRefSchema,
  /** Events that start an investigation; anything else is answered 202 `{ignored: true}`. */
  events: z.array(eventSchema).min(1).max(50),
  agent_id: z.string().min(1).max(64),
  /** The project, as a template filled from the payload (`{{repository.full_name}}`) or a fixed `owner/repo`. */
  project: z.string().min(1).max(300).optional(),
  /** The message the agent answers, filled from the payload: `Review {{pull_request.title}}`. */
  prompt: z.string().min(1).max(20_000),
  /** The session's title, filled the same way; by default the hook and the event. */
  title: z.string().min(1).max(300).optional(),
  /** The session's owner: whose session the investigation is. */
  owner: z.strictObject({ user_id: userIdSchema, name: z.string().min(1).max(200).optional() }),
  /** Others who may follow the investigation. */
  members: z
    .array(z.strictObject({ user_id: userIdSchema, name: z.string().min(1).max(200).optional(), role: roleSchema.default('viewer') }))
    .max(50)
    .default([]),
  /** Receives a signed POST when the investigation ends. */
  callback_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }).max(2000).optional(),
  /** Generic hooks: how far a request's timestamp may be from now, in seconds. */
  tolerance_seconds: z.number().int().min(30).max(3600).default(300),
});
export type HookInput = z.input<typeof hookInputSchema>;

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
      console.error(JSON.stringify({ level: 'error', msg: 'unreadable hook configuration', hook_id: id, error: parsed.error.message }));
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
