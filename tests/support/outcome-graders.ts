import type { FakeRequest, FakeTurn } from './fake-anthropic';

/** The rubric the outcome tests grade against. */
export const RUBRIC = 'The answer names Paris as the capital of France.';

/** Whether a request to the fake model is the outcome grader's (its own context, its own system prompt). */
export const isGrader = (request: FakeRequest) => JSON.stringify(request.body.system ?? '').includes('You are a strict grader');

/** The grader's answer: a verdict, a score and its reasons. */
export const verdict = (v: string, score: number, reasons: string): FakeTurn => ({ text: JSON.stringify({ verdict: v, score, reasons }) });

/**
 * A fake model script: the agent answers "Lyon" until the grader's feedback reaches it, then "Paris";
 * the grader passes an answer that says Paris and sends any other back ("say Paris").
 */
export function lyonThenParis(request: FakeRequest): FakeTurn {
  const shown = JSON.stringify(request.body.messages);
  if (isGrader(request)) return shown.includes('Paris is the capital') ? verdict('satisfied', 1, 'Names Paris.') : verdict('needs_revision', 0.2, 'It names Lyon, not Paris: say Paris.');
  return { text: shown.includes('say Paris') ? 'Paris is the capital of France.' : 'Lyon is the capital of France.' };
}
