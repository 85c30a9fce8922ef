/** The deterministic id of a case's session under a variant: a driver that resumes a run finds the session it started, never a second one. */
export const caseSessionId = (runId: string, variant: number, caseIndex: number) => `${runId}_v${variant}_c${caseIndex}`;
