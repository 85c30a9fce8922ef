import * as z from 'zod';
import { invalidField, ZeroError } from '@zero/agent/errors';
import { scheduleInputSchema } from '@zero/agent/wire';
import { sessionResourceParams } from '../environment-store/session-resources';
import type { DeploymentRecord } from './deployment-store';

/** The longest text a deployment's `user.message` may hold: a schedule's prompt. */
export const MAX_DEPLOYMENT_PROMPT_CHARS = 20_000;

const agentParam = z.union([
  z.string().min(1).max(200),
  z.strictObject({ type: z.literal('agent'), id: z.string().min(1).max(200), version: z.number().int().positive().optional() }),
]);

/** `BetaManagedAgentsScheduleParams`: a 5-field cron read in an IANA time zone (checked further by `checkSchedule`). */
const scheduleParam = z.strictObject({
  type: z.literal('cron'),
  expression: z.string().min(1).max(200),
  timezone: scheduleInputSchema.shape.timezone,
});

const metadataKey = z.string().min(1).max(64);
const sixteenKeys = (m: Record<string, unknown>) => Object.keys(m).length <= 16;

/** `POST /v1/deployments` (`DeploymentCreateParams`). */
export const deploymentCreateParams = z.strictObject({
  agent: agentParam,
  environment_id: z.string().min(1).max(200),
  initial_events: z.array(z.looseObject({ type: z.string() })).min(1, 'needs at least one event').max(50),
  name: z.string().trim().min(1, 'must not be empty').max(256),
  budget: z.unknown().optional(),
  description: z.string().max(2048).nullish(),
  metadata: z.record(metadataKey, z.string().max(512)).refine(sixteenKeys, 'at most 16 keys').optional(),
  resources: z.array(sessionResourceParams).max(20).optional(),
  schedule: scheduleParam.nullish(),
  vault_ids: z.array(z.string().min(1).max(200)).max(50).optional(),
});
export type DeploymentCreateParams = z.infer<typeof deploymentCreateParams>;

/** `POST /v1/deployments/:id` (`DeploymentUpdateParams`): omitted fields are kept, `null` clears what may be cleared. */
export const deploymentUpdateParams = z.strictObject({
  agent: agentParam.optional(),
  budget: z.unknown().optional(),
  description: z.string().max(2048).nullish(),
  environment_id: z.string().min(1).max(200).optional(),
  initial_events: z.array(z.looseObject({ type: z.string() })).min(1, 'needs at least one event').max(50).optional(),
  metadata: z.record(metadataKey, z.string().max(512).nullable()).nullish(),
  name: z.string().trim().min(1, 'must not be empty').max(256).optional(),
  resources: z.array(sessionResourceParams).max(20).nullish(),
  schedule: scheduleParam.nullish(),
  vault_ids: z.array(z.string().min(1).max(200)).max(50).nullish(),
});
export type DeploymentUpdateParams = z.infer<typeof deploymentUpdateParams>;

/** The refusal of a spend ceiling, which Zero has per user and deployment-wide, not per session. */
export function refuseBudget(budget: unknown): void {
  if (budget !== undefined && budget !== null) {
    throw invalidField('budget', "per-session spend ceilings are not supported yet; Zero's operator budgets (ZERO_BUDGET_*) and run limits (ZERO_MAX_TOKENS, ZERO_MAX_STEPS) apply to every session");
  }
}

const textUserMessage = z.strictObject({
  type: z.literal('user.message'),
  content: z.array(z.strictObject({ type: z.literal('text'), text: z.string() })).min(1, 'must hold at least one block'),
});

/**
 * The initial events Zero can send: one `user.message` of text blocks, the message each run answers.
 * Anything else is a 400 naming the event (a `system.message`, an outcome, images, several messages).
 */
export function initialEventsOf(events: readonly { type: string }[]): DeploymentRecord['initial_events'] {
  for (const [i, event] of events.entries()) {
    if (event.type !== 'user.message') {
      throw invalidField(`initial_events.${i}.type`, `"${event.type}" is not supported in a deployment: Zero starts each session with one user.message of text`);
    }
  }
  if (events.length > 1) throw invalidField('initial_events', `Zero starts each session with one user.message; got ${events.length} events: join their text into one`);
  const parsed = textUserMessage.safeParse(events[0]);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw invalidField(['initial_events', 0, ...issue.path].join('.'), issue.code === 'invalid_value' || issue.code === 'unrecognized_keys' ? 'only text blocks ({"type":"text","text":…}) are supported in a deployment' : issue.message);
  }
  const text = promptOf(parsed.data.content);
  if (!text.trim()) throw invalidField('initial_events.0.content', 'must not be empty');
  if (text.length > MAX_DEPLOYMENT_PROMPT_CHARS) throw invalidField('initial_events.0.content', `is ${text.length} characters; a deployment's message holds at most ${MAX_DEPLOYMENT_PROMPT_CHARS}`);
  return [parsed.data];
}

/** The text each run of the deployment answers. */
export const promptOf = (content: readonly { text: string }[]) => content.map((b) => b.text).join('\n\n');

/**
 * Checks a cron the way a Zero schedule is checked (croner reads it in the time zone; EventBridge
 * Scheduler can be given it), naming `schedule.expression`. Croner is loaded here, with the first
 * deployment that has a schedule.
 */
export async function checkSchedule(schedule: { expression: string; timezone: string }): Promise<void> {
  const { parseCron } = await import('../schedules/cron');
  const { schedulerExpressions } = await import('../schedules/aws-cron');
  if (!/^\s*\S+(\s+\S+){4}\s*$/.test(schedule.expression)) throw invalidField('schedule.expression', 'must have five fields: minute hour day-of-month month day-of-week');
  try {
    parseCron(schedule.expression, schedule.timezone);
    schedulerExpressions(schedule.expression);
  } catch (error) {
    if (ZeroError.isInstance(error) && error.details.field === 'cron') throw invalidField('schedule.expression', error.message.replace(/^cron: /, ''));
    throw error;
  }
}
