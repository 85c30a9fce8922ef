import * as z from 'zod';
import { projectIdSchema } from './fields';

/** A plan's steps: how to go about it, in order. */
export const planStepsSchema = z.array(z.string().trim().min(1, 'must not be empty').max(10_000)).max(100);

/** Where a run is in its plan: a step started, done or failed (the `plan_progress` event and log record). */
export const planStepStatusSchema = z.enum(['started', 'done', 'failed']);
export type PlanStepStatus = z.infer<typeof planStepStatusSchema>;

/**
 * A plan: a task written down ahead (a file for `zero run --plan`, or the
 * `plan` of `POST /chat`), turned by the server into the run's message.
 */
const stepsSchema = planStepsSchema;

export const planSchema = z
  .strictObject({
    /** What should be true when the run is done. */
    goal: z.string().trim().min(1, 'must not be empty').max(10_000),
    /** What the agent should know: prose, a list of facts, or named facts (`directory: src/`, as XZatoma's plans write it). */
    context: z
      .union([
        z.string().trim().max(50_000),
        z.array(z.string().trim().min(1, 'must not be empty').max(10_000)).max(100),
        z.record(z.string().trim().min(1).max(200), z.union([z.string().trim().max(10_000), z.number(), z.boolean()])).refine((r) => Object.keys(r).length <= 100, 'at most 100 entries'),
      ])
      .optional(),
    /** How to go about it, in order; guidance, not a script. */
    steps: stepsSchema.optional(),
    /** XZatoma's name for `steps`; a plan gives one or the other. */
    instructions: stepsSchema.optional(),
    /** The agent to run it, when the request names none. */
    agent: z.string().min(1).max(64).optional(),
    /** The project, when the request names none. */
    project: projectIdSchema.optional(),
  })
  .refine((plan) => !(plan.steps && plan.instructions), { path: ['instructions'], message: 'give steps or instructions, not both (they are the same list)' });
export type Plan = z.infer<typeof planSchema>;
