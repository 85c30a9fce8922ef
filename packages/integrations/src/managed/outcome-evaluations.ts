import type { StreamEvent } from '@zero/agent/wire';

/** One outcome of a session as the API shows it (`BetaManagedAgentsOutcomeEvaluationResource`). */
export interface OutcomeEvaluationResource {
  type: 'outcome_evaluation';
  outcome_id: string;
  description: string;
  iteration: number;
  result: string;
  explanation: string | null;
  completed_at: string | null;
}

/**
 * The session's outcomes and where each stands, folded from its events in order: `running` while the
 * agent works (first answer or a revision), `evaluating` while the grader scores, then the last
 * evaluation's result (`needs_revision` is not terminal: the revision's message sets it running again).
 */
export function outcomeEvaluations(events: readonly (StreamEvent & { at?: string })[], now: () => string = () => new Date().toISOString()): OutcomeEvaluationResource[] {
  const byId = new Map<string, OutcomeEvaluationResource>();
  for (const e of events) {
    if (e.type === 'message' && e.outcome) {
      const known = byId.get(e.outcome.outcome_id);
      byId.set(e.outcome.outcome_id, { type: 'outcome_evaluation', outcome_id: e.outcome.outcome_id, description: e.outcome.description, iteration: e.outcome.iteration, result: 'running', explanation: known?.explanation ?? null, completed_at: null });
    } else if (e.type === 'outcome_evaluation') {
      const known = byId.get(e.outcome_id);
      if (!known) continue;
      known.iteration = e.iteration;
      if (e.phase !== 'end') known.result = 'evaluating';
      else {
        known.result = e.result ?? 'failed';
        known.explanation = e.explanation ?? null;
        known.completed_at = e.result === 'needs_revision' ? null : now();
      }
    }
  }
  return [...byId.values()];
}
