import * as z from 'zod';
import { invalidField } from '@zero/agent/errors';
import {
  allowedHostSchema,
  environmentKindSchema,
  environmentLimitsSchema,
  packageNameSchema,
  type EnvironmentNetwork,
  type EnvironmentPackages,
  type EnvironmentRecord,
} from '@zero/runtime/store/items/environment';

const metadataSchema = z
  .record(z.string().min(1).max(64), z.string().max(512))
  .refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');
const metadataPatchSchema = z
  .record(z.string().min(1).max(64), z.string().max(512).nullable())
  .refine((m) => Object.keys(m).length <= 16, 'at most 16 keys');
const packageList = z.array(packageNameSchema).max(100).nullish();

/** `BetaPackagesParams`: lists by package manager; an absent one is empty (on update: kept). */
const packagesParams = z.strictObject({ type: z.literal('packages').optional(), apt: packageList, npm: packageList, pip: packageList, cargo: packageList, gem: packageList, go: packageList });
/** `BetaUnrestrictedNetwork` | `BetaLimitedNetworkParams`. */
const networkParams = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('unrestricted') }),
  z.strictObject({
    type: z.literal('limited'),
    allowed_hosts: z.array(allowedHostSchema).max(100).nullish(),
    allow_package_managers: z.boolean().nullish(),
    allow_mcp_servers: z.boolean().nullish(),
  }),
]);
/** `BetaCloudConfigParams` | `BetaSelfHostedConfigParams`. */
const configParams = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('cloud'), networking: networkParams.nullish(), packages: packagesParams.nullish() }),
  z.strictObject({ type: z.literal('self_hosted') }),
]);

/** `POST /v1/environments` (`EnvironmentCreateParams`). */
export const environmentCreateParams = z.strictObject({
  name: z.string().trim().min(1).max(256),
  config: configParams.nullish(),
  description: z.string().max(2048).nullish(),
  metadata: metadataSchema.optional(),
  scope: z.enum(['organization', 'account']).nullish(),
});
export type EnvironmentCreateParams = z.infer<typeof environmentCreateParams>;

/** `POST /v1/environments/:id` (`EnvironmentUpdateParams`): an absent field keeps its value. */
export const environmentUpdateParams = z.strictObject({
  name: z.string().trim().min(1).max(256).nullish(),
  config: configParams.nullish(),
  description: z.string().max(2048).nullish(),
  metadata: metadataPatchSchema.optional(),
  scope: z.enum(['organization', 'account']).nullish(),
});
export type EnvironmentUpdateParams = z.infer<typeof environmentUpdateParams>;

/** Zero's own fields beside the SDK's (`/api/v2/environments`): the kind by name, and limits. */
export const zeroEnvironmentFields = {
  kind: environmentKindSchema.optional(),
  limits: environmentLimitsSchema.strict().optional(),
};

const NO_NETWORK: Extract<EnvironmentNetwork, { type: 'limited' }> = { type: 'limited', allowed_hosts: [], allow_package_managers: false, allow_mcp_servers: false };

function packagesOf(params: z.infer<typeof packagesParams> | null | undefined, current: EnvironmentPackages): EnvironmentPackages {
  if (!params) return current;
  return {
    apt: params.apt ?? current.apt,
    npm: params.npm ?? current.npm,
    pip: params.pip ?? current.pip,
    cargo: params.cargo ?? current.cargo,
    gem: params.gem ?? current.gem,
    go: params.go ?? current.go,
  };
}

function networkOf(params: z.infer<typeof networkParams> | null | undefined, current: EnvironmentNetwork): EnvironmentNetwork {
  if (!params) return current;
  if (params.type === 'unrestricted') return params;
  const base = current.type === 'limited' ? current : NO_NETWORK;
  return {
    type: 'limited',
    allowed_hosts: params.allowed_hosts ?? base.allowed_hosts,
    allow_package_managers: params.allow_package_managers ?? base.allow_package_managers,
    allow_mcp_servers: params.allow_mcp_servers ?? base.allow_mcp_servers,
  };
}

/**
 * The environment with `config` applied: `cloud` is a sandbox Zero runs (the kind the environment
 * has, `local` or `lambda`), `self_hosted` the work queue. The type never changes after creation (a
 * 400 naming `config.type`; a new environment starts as the deployment's sandbox kind), and packages
 * under limited networking need `allow_package_managers`, as the API has it.
 */
export function applyConfig(current: EnvironmentRecord, config: z.infer<typeof configParams> | null | undefined, creating: boolean): EnvironmentRecord {
  if (!config) return current;
  const selfHosted = config.type === 'self_hosted';
  if (!creating && selfHosted !== (current.kind === 'self_hosted')) {
    throw invalidField('config.type', `the environment is ${current.kind === 'self_hosted' ? 'self_hosted' : 'cloud'}; its type cannot change after creation`);
  }
  if (config.type === 'self_hosted') return { ...current, kind: 'self_hosted' };
  const next = { ...current, packages: packagesOf(config.packages, current.packages), network: networkOf(config.networking, current.network) };
  checkPackagesReachable(next);
  return next;
}

/** Packages are fetched from their registries: under limited networking that needs `allow_package_managers`. */
export function checkPackagesReachable(environment: EnvironmentRecord, field = 'config.packages'): void {
  const any = Object.values(environment.packages).some((list) => list.length > 0);
  if (any && environment.network.type === 'limited' && !environment.network.allow_package_managers) {
    throw invalidField(field, 'packages need networking.allow_package_managers: true under limited networking');
  }
}

/** Metadata with a patch applied: a null or empty value removes its key. */
export function patchMetadata(current: Record<string, string>, patch: Record<string, string | null> | undefined): Record<string, string> {
  const next = { ...current };
  for (const [key, value] of Object.entries(patch ?? {})) {
    if (value === null || value === '') delete next[key];
    else next[key] = value;
  }
  if (Object.keys(next).length > 16) throw invalidField('metadata', 'at most 16 keys');
  return next;
}

/** `POST /api/v2/environments`: Zero's fields by name (the kind, limits) beside the SDK's packages and networking. */
export const environmentInputSchema = z.strictObject({
  name: z.string().trim().min(1).max(256),
  description: z.string().max(2048).nullish(),
  kind: environmentKindSchema.optional(),
  packages: packagesParams.optional(),
  network: networkParams.optional(),
  limits: environmentLimitsSchema.strict().optional(),
  metadata: metadataSchema.optional(),
});
export type EnvironmentInput = z.infer<typeof environmentInputSchema>;

/** `PATCH /api/v2/environments/:id`: what is sent changes, the rest stays; the kind never changes. */
export const environmentPatchSchema = z.strictObject({
  name: z.string().trim().min(1).max(256).optional(),
  description: z.string().max(2048).nullish(),
  packages: packagesParams.optional(),
  network: networkParams.optional(),
  limits: environmentLimitsSchema.strict().optional(),
  metadata: metadataPatchSchema.optional(),
});
export type EnvironmentPatch = z.infer<typeof environmentPatchSchema>;

/** Packages, network and limits from Zero's input applied; packages under limited networking need `allow_package_managers`. */
export function applyZeroInput(current: EnvironmentRecord, input: Pick<EnvironmentPatch, 'packages' | 'network' | 'limits'>): EnvironmentRecord {
  const next = { ...current, packages: packagesOf(input.packages, current.packages), network: networkOf(input.network, current.network), limits: input.limits ?? current.limits };
  checkPackagesReachable(next, 'packages');
  return next;
}
