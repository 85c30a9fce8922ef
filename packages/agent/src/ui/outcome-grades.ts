import type { OutcomeGrade, StreamEvent } from '../wire';

/**
 * The grades of a session's outcome runs, folded from its events in order: one per graded run (its
 * evaluation's last phase), what `GET /sessions/:id` gives as `outcome_grades` so a reloaded answer shows
 * its grade and the grader's reasons as the stream showed them (the `data-outcome` part).
 */
export function outcomeGrades(events: readonly StreamEvent[]): OutcomeGrade[] {
  const byRun = new Map<string, OutcomeGrade>();
  for (const e of events) {
    if (e.type !== 'outcome_evaluation' || !e.run_id) continue;
    const { outcome_id, iteration, max_iterations, phase, result, score, explanation } = e;
    byRun.set(e.run_id, { run_id: e.run_id, outcome_id, iteration, ...(max_iterations ? { max_iterations } : {}), phase, ...(result ? { result } : {}), ...(score !== undefined ? { score } : {}), ...(explanation ? { explanation } : {}) });
  }
  return [...byRun.values()];
}
