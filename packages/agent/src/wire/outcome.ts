import * as z from 'zod';

/** The longest rubric Zero takes (the Managed Agents API's limit for a text rubric). */
export const MAX_RUBRIC_CHARS = 262_144;
/** Evaluate-then-revise cycles of an outcome when the request names none, and the most it may name. */
export const DEFAULT_OUTCOME_ITERATIONS = 3;
export const MAX_OUTCOME_ITERATIONS = 20;

/** `outcome` of a `POST /api/v2/chat` request: the message is the task; a grader scores the answer against the rubric. */
export const outcomeRequestSchema = z.strictObject({
  rubric: z.string().trim().min(1, 'must not be empty').max(MAX_RUBRIC_CHARS),
  max_iterations: z.number().int().min(1).max(MAX_OUTCOME_ITERATIONS).optional(),
});
export type OutcomeRequest = z.infer<typeof outcomeRequestSchema>;

/**
 * An outcome a message works toward, as it travels with the message (inbox, log): the task, the
 * rubric, and which evaluate-then-revise cycle the message's run is (0: the first answer).
 */
export const outcomeSpecSchema = z.object({
  outcome_id: z.string().min(1).max(100),
  description: z.string(),
  rubric: z.string(),
  max_iterations: z.number().int().min(1).max(MAX_OUTCOME_ITERATIONS),
  iteration: z.number().int().nonnegative(),
});
export type OutcomeSpec = z.infer<typeof outcomeSpecSchema>;

/** A grader's verdict: `satisfied` ends the outcome; `needs_revision` sends the agent back; `failed`: the rubric does not apply. */
export const outcomeVerdictSchema = z.enum(['satisfied', 'needs_revision', 'failed']);
export type OutcomeVerdict = z.infer<typeof outcomeVerdictSchema>;

/** What ends an evaluation cycle: the verdict, or `max_iterations_reached` when the cycles are spent with criteria unmet. */
export const outcomeResultSchema = z.enum(['satisfied', 'needs_revision', 'failed', 'max_iterations_reached']);
export type OutcomeResult = z.infer<typeof outcomeResultSchema>;

/** Where a run's evaluation stands, as the console shows it (the `data-outcome` part): `iteration` is 0-based. */
export const outcomeGradePartSchema = z.object({
  outcome_id: z.string(),
  iteration: z.number().int().nonnegative(),
  max_iterations: z.number().int().positive().optional(),
  phase: z.enum(['start', 'ongoing', 'end']),
  result: outcomeResultSchema.optional(),
  score: z.number().optional(),
  explanation: z.string().optional(),
});
export type OutcomeGradePart = z.infer<typeof outcomeGradePartSchema>;
/** A graded run's evaluation, by run (`GET /sessions/:id`'s `outcome_grades`). */
export const outcomeGradeSchema = outcomeGradePartSchema.extend({ run_id: z.string() });
export type OutcomeGrade = z.infer<typeof outcomeGradeSchema>;
