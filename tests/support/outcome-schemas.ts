import * as z from 'zod';
import { sessionEventSchema } from './managed-agents-schemas';

const at = { id: z.string(), processed_at: z.string() };
const spanUsage = z.object({ input_tokens: z.number(), output_tokens: z.number(), cache_read_input_tokens: z.number(), cache_creation_input_tokens: z.number() });

/** `BetaManagedAgentsUserDefineOutcomeEvent`. */
export const defineOutcomeEventSchema = z.object({
  type: z.literal('user.define_outcome'),
  ...at,
  outcome_id: z.string().regex(/^outc_/),
  description: z.string(),
  max_iterations: z.number().nullable(),
  rubric: z.union([z.object({ type: z.literal('text'), content: z.string() }), z.object({ type: z.literal('file'), file_id: z.string() })]),
});

/** `BetaManagedAgentsSpanOutcomeEvaluationStartEvent`, `…OngoingEvent`, `…EndEvent`. */
export const outcomeSpanSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('span.outcome_evaluation_start'), ...at, outcome_id: z.string(), iteration: z.number() }),
  z.object({ type: z.literal('span.outcome_evaluation_ongoing'), ...at, outcome_id: z.string(), iteration: z.number() }),
  z.object({
    type: z.literal('span.outcome_evaluation_end'),
    ...at,
    outcome_id: z.string(),
    iteration: z.number(),
    outcome_evaluation_start_id: z.string(),
    explanation: z.string(),
    result: z.string(),
    usage: spanUsage,
  }),
]);

/** Every event Zero sends, outcomes' included. */
export const eventWithOutcomesSchema = z.union([sessionEventSchema, defineOutcomeEventSchema, outcomeSpanSchema]);
export type EventWithOutcomes = z.infer<typeof eventWithOutcomesSchema>;

/** `BetaManagedAgentsOutcomeEvaluationResource`. */
export const outcomeEvaluationSchema = z.object({
  type: z.literal('outcome_evaluation'),
  outcome_id: z.string(),
  description: z.string(),
  iteration: z.number(),
  result: z.string(),
  explanation: z.string().nullable(),
  completed_at: z.string().nullable(),
});
