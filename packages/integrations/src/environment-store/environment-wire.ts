import * as z from 'zod';
import { environmentKindSchema, environmentLimitsSchema, environmentNetworkSchema, environmentPackagesSchema } from '@zero/runtime/store/items/environment';

/** An environment as `/api/v2/environments` shows it (see `environmentView`). */
export const environmentViewSchema = z.object({
  type: z.literal('environment'),
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  config: z.union([z.object({ type: z.literal('self_hosted') }), z.object({ type: z.literal('cloud'), networking: environmentNetworkSchema, packages: environmentPackagesSchema.extend({ type: z.literal('packages') }) })]),
  metadata: z.record(z.string(), z.string()),
  scope: z.literal('account'),
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
  kind: environmentKindSchema,
  limits: environmentLimitsSchema,
  owner: z.string().nullable(),
  /** How the install of its packages went on this server (see `environmentView`). */
  packages_status: z.object({ state: z.enum(['pending', 'installing', 'ready', 'failed']), error: z.string().nullable(), at: z.string() }).nullable(),
});
export const environmentResponseSchema = z.object({ environment: environmentViewSchema });
export const environmentListSchema = z.object({ environments: z.array(environmentViewSchema) });
export const environmentIdSchema = z.string().regex(/^env_[A-Za-z0-9_]{1,64}$/, 'must be an environment id (env_…)');
