import { describe, expect, it } from 'vitest';
import { checkConclusion, reportMarker } from './github-report';

describe('reports on GitHub', () => {
  it("gives a check run its conclusion from the run's end: neutral at a limit", () => {
    expect(['completed', 'limit', 'error', 'cancelled'].map((s) => checkConclusion(s as never))).toEqual(['success', 'neutral', 'failure', 'cancelled']);
  });

  it('marks a comment per hook, as an HTML comment GitHub does not show', () => {
    expect(reportMarker('pr-review')).toBe('<!-- zero:report hook=pr-review -->');
    expect(reportMarker('a')).not.toBe(reportMarker('b'));
  });
});
