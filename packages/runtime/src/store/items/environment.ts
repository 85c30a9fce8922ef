import * as z from 'zod';
import { storedItem } from '../stored-item';

/** A package name as a package manager takes it, optionally with a version (`left-pad@1.3.0`, `requests==2.32.3`); no spaces, no shell syntax. */
export const packageNameSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9@][A-Za-z0-9@/._+:=<>~^*!-]*$/, 'must be a package name, optionally with a version (letters, digits and @/._+:=<>~^*!-; no spaces)');

/** A host the environment's network allowlist opens: a DNS name, optionally `*.` for its subdomains. */
export const allowedHostSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(/^(\*\.)?[A-Za-z0-9]([A-Za-z0-9-]{0,62}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,62}[A-Za-z0-9])?)*$/, 'must be a host name such as "registry.npmjs.org" or "*.example.com"');

const packageList = z.array(packageNameSchema).max(100);

/** Packages an environment installs, by package manager (the SDK's `BetaPackages`). */
export const environmentPackagesSchema = z.object({
  apt: packageList,
  npm: packageList,
  pip: packageList,
  cargo: packageList,
  gem: packageList,
  go: packageList,
});
export type EnvironmentPackages = z.infer<typeof environmentPackagesSchema>;

/** What a sandbox of the environment may reach: nothing but its allowlist (`limited`), or any public host (`unrestricted`); both through the outbound guard. */
export const environmentNetworkSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('unrestricted') }),
  z.object({ type: z.literal('limited'), allowed_hosts: z.array(allowedHostSchema).max(100), allow_package_managers: z.boolean(), allow_mcp_servers: z.boolean() }),
]);
export type EnvironmentNetwork = z.infer<typeof environmentNetworkSchema>;

/** A sandbox's limits per command; an absent one is the deployment's default. */
export const environmentLimitsSchema = z.object({
  cpu_seconds: z.number().int().min(1).max(3600).optional(),
  memory_mb: z.number().int().min(64).max(10_240).optional(),
  processes: z.number().int().min(1).max(4096).optional(),
  disk_mb: z.number().int().min(16).max(10_240).optional(),
  timeout_seconds: z.number().int().min(1).max(3600).optional(),
});
export type EnvironmentLimits = z.infer<typeof environmentLimitsSchema>;

/**
 * How the install of an environment's packages went, on the server that installed them: `installing`
 * while a package manager runs, `ready` when all are installed, `failed` with the package manager's
 * error. `packages_hash` names the package lists it is about (a change of packages makes it stale).
 */
export const packagesStatusSchema = z.object({
  state: z.enum(['installing', 'ready', 'failed']),
  packages_hash: z.string(),
  error: z.string().nullable(),
  at: z.string(),
});
export type PackagesStatus = z.infer<typeof packagesStatusSchema>;

/**
 * Where commands run: `local` (bubblewrap on the server's machine), `lambda` (the sandbox
 * function) or `self_hosted` (a `zero worker` on a machine the user controls).
 */
export const environmentKindSchema = z.enum(['local', 'lambda', 'self_hosted']);
export type EnvironmentKind = z.infer<typeof environmentKindSchema>;

/** An environment as stored: its owner, its configuration and a revision that every update raises. */
export const environmentRecordSchema = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  kind: environmentKindSchema,
  packages: environmentPackagesSchema,
  network: environmentNetworkSchema,
  limits: environmentLimitsSchema,
  /** Absent until a command first needed the packages installed. */
  packages_status: packagesStatusSchema.optional(),
  metadata: z.record(z.string(), z.string()),
  /** The user who created it: they (and administrators) reach it, nobody else. */
  owner: z.string(),
  /** 1 at creation, +1 per update: an update is written only over the revision it read. */
  revision: z.number().int().positive(),
  created_at: z.string(),
  updated_at: z.string(),
  archived_at: z.string().nullable(),
});
export type EnvironmentRecord = z.infer<typeof environmentRecordSchema>;

/** Versions: 1 (issue 29). */
export const environmentItem = storedItem<EnvironmentRecord>('environment', { 1: environmentRecordSchema });
