import { createHash, randomBytes } from 'node:crypto';
import * as z from 'zod';
import { notFound } from '@zero/agent/errors';
import { log } from '@zero/agent/log/log';
import type { ArtifactStore } from '@zero/runtime/store/artifact-store';
import { sessionResourceSchema } from '@zero/runtime/store/session-record';

/**
 * Deployments (`client.beta.deployments`) and their runs in the bucket, each deployment its owner's
 * alone: `deployments/<owner>/<deployment id>/deployment.json` and `…/runs/<run id>.json`. Every read
 * names the owner, so another user's deployment is a 404 at the data, and one LIST of the owner's
 * prefix finds all their deployments and runs. A deployment with a cron schedule also has a Zero
 * schedule (`deploymentScheduleId`), which the timer or EventBridge Scheduler fires (start-deployment.ts).
 */

const ALPHABET = 'abcdefghijklmnopqrstuvwxyz0123456789';
const token = (n: number) => [...randomBytes(n)].map((b) => ALPHABET[b % 36]).join('');

const DEPLOYMENT_ID = /^depl_([a-z0-9]{24})$/;
/** A run's id carries its deployment's: `drun_<24 of the deployment>` and 20 of its own. */
const RUN_ID = /^drun_([a-z0-9]{24})([a-z0-9]{20})$/;

export const newDeploymentId = () => `depl_${token(24)}`;
/** A run started by hand: a fresh id. */
export const manualRunId = (deploymentId: string) => `drun_${deploymentId.slice(5)}${token(20)}`;
/** The run of a scheduled time: the same id whichever trigger, retry or sweep records it. */
export const scheduledRunId = (deploymentId: string, scheduledAt: string) =>
  `drun_${deploymentId.slice(5)}${createHash('sha256').update(`${deploymentId}\n${scheduledAt}`).digest('hex').slice(0, 20)}`;
/** The Zero schedule that fires a deployment's cron (schedule ids are lower-case letters, digits and dashes). */
export const deploymentScheduleId = (deploymentId: string) => deploymentId.replace('_', '-');

/** The first event of each session: the text of one `user.message`, as sent. */
export const storedInitialEventSchema = z.object({ type: z.literal('user.message'), content: z.array(z.object({ type: z.literal('text'), text: z.string() })) });

export const deploymentRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  /** Whose sessions it starts: the user who created it. */
  owner: z.object({ user_id: z.string(), name: z.string().optional() }),
  name: z.string(),
  description: z.string().nullable(),
  /** The agent version each session runs, pinned when the deployment was created or its agent changed. */
  agent: z.object({ id: z.string(), version: z.number().int().positive() }),
  environment_id: z.string(),
  initial_events: z.array(storedInitialEventSchema),
  metadata: z.record(z.string(), z.string()),
  /** Repositories mounted into each session (ids reused by every session; a resource id is the session's own). */
  resources: z.array(sessionResourceSchema),
  vault_ids: z.array(z.string()),
  schedule: z.object({ expression: z.string(), timezone: z.string() }).nullable(),
  /** Paused by its owner (`pause`); a schedule that paused itself after failed runs is the schedule's own state. */
  paused: z.boolean(),
  archived_at: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type DeploymentRecord = z.infer<typeof deploymentRecordSchema>;

/** Why a run started no session (`BetaManagedAgentsDeploymentRun.error`). */
export const runErrorSchema = z.object({ type: z.string(), message: z.string() });
export type RunError = z.infer<typeof runErrorSchema>;

export const deploymentRunRecordSchema = z.object({
  v: z.literal(1),
  id: z.string(),
  deployment_id: z.string(),
  agent: z.object({ id: z.string(), version: z.number().int().positive() }),
  /** Exactly one of `session_id` and `error` is set. */
  session_id: z.string().nullable(),
  error: runErrorSchema.nullable(),
  trigger: z.discriminatedUnion('type', [z.object({ type: z.literal('schedule'), scheduled_at: z.string() }), z.object({ type: z.literal('manual') })]),
  created_at: z.string(),
});
export type DeploymentRunRecord = z.infer<typeof deploymentRunRecordSchema>;

const present = <T>(items: (T | undefined)[]) => items.filter((item): item is T => item !== undefined);

const ownerPrefix = (owner: string) => `deployments/${encodeURIComponent(owner)}/`;
const deploymentKey = (owner: string, id: string) => `${ownerPrefix(owner)}${id}/deployment.json`;
const runKey = (owner: string, deploymentId: string, runId: string) => `${ownerPrefix(owner)}${deploymentId}/runs/${runId}.json`;

export class DeploymentStore {
  constructor(private readonly artifacts: ArtifactStore) {}

  /** An object read with its schema: one that does not parse is logged and reads as absent, never as a 500. */
  private async read<T>(schema: z.ZodType<T>, key: string): Promise<T | undefined> {
    const raw = await this.artifacts.getJson(key);
    if (raw === undefined) return undefined;
    const parsed = schema.safeParse(raw);
    if (!parsed.success) log.error('unreadable deployment object', { key, error: parsed.error.message });
    return parsed.success ? parsed.data : undefined;
  }

  /** Creates or replaces the deployment (last writer wins, as every configuration in the bucket). */
  async put(record: DeploymentRecord): Promise<void> {
    await this.artifacts.putJson(deploymentKey(record.owner.user_id, record.id), deploymentRecordSchema.parse(record));
  }

  async get(owner: string, id: string): Promise<DeploymentRecord | undefined> {
    return DEPLOYMENT_ID.test(id) ? this.read(deploymentRecordSchema, deploymentKey(owner, id)) : undefined;
  }

  /** The owner's deployment, or a 404 (also for another user's: nobody learns it exists). */
  async reach(owner: string, id: string): Promise<DeploymentRecord> {
    const record = await this.get(owner, id);
    if (!record) throw notFound(`no deployment "${id}"`, 'deployment_id');
    return record;
  }

  /** The owner's deployments and runs, newest first, from one listing of their prefix. */
  async listAll(owner: string): Promise<{ deployments: DeploymentRecord[]; runs: DeploymentRunRecord[] }> {
    const keys = (await this.artifacts.list(ownerPrefix(owner))).map((o) => o.key);
    const [deployments, runs] = await Promise.all([
      Promise.all(keys.filter((k) => k.endsWith('/deployment.json')).map((k) => this.read(deploymentRecordSchema, k))).then(present),
      Promise.all(keys.filter((k) => k.includes('/runs/')).map((k) => this.read(deploymentRunRecordSchema, k))).then(present),
    ]);
    const newestFirst = <T extends { created_at: string; id: string }>(a: T, b: T) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id);
    return { deployments: deployments.sort(newestFirst), runs: runs.sort(newestFirst) };
  }

  /** The runs of one deployment, newest first. */
  async runsOf(owner: string, deploymentId: string): Promise<DeploymentRunRecord[]> {
    if (!DEPLOYMENT_ID.test(deploymentId)) return [];
    const keys = (await this.artifacts.list(`${ownerPrefix(owner)}${deploymentId}/runs/`)).map((o) => o.key);
    const runs = present(await Promise.all(keys.map((k) => this.read(deploymentRunRecordSchema, k))));
    return runs.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id.localeCompare(a.id));
  }

  /** Records a run; a scheduled time's run written again (a retried trigger) replaces itself. */
  async putRun(owner: string, run: DeploymentRunRecord): Promise<void> {
    await this.artifacts.putJson(runKey(owner, run.deployment_id, run.id), deploymentRunRecordSchema.parse(run));
  }

  /** The owner's run, or a 404. */
  async reachRun(owner: string, id: string): Promise<DeploymentRunRecord> {
    const match = RUN_ID.exec(id);
    const run = match ? await this.read(deploymentRunRecordSchema, runKey(owner, `depl_${match[1]}`, id)) : undefined;
    if (!run) throw notFound(`no deployment run "${id}"`, 'deployment_run_id');
    return run;
  }
}
