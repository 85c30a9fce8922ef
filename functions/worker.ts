import { handleRunJobs } from '@zero/core/sessions';
import { settleInvestigation } from '@zero/core/webhooks';
import { lambdaRuntime } from './runtime';

const runtime = lambdaRuntime();

interface SqsEvent {
  Records: { messageId: string; body: string }[];
}

/**
 * The worker behind the run queue: carries sessions on (webhook
 * investigations, runs handed over near a time limit). Its own time budget
 * comes from the Lambda context; a run that nears it hands over again.
 * Failures are reported per message (partial batch response).
 */
export async function handler(event: SqsEvent, context?: { getRemainingTimeInMillis(): number }) {
  const deadline = context ? Date.now() + context.getRemainingTimeInMillis() : undefined;
  return handleRunJobs(runtime, event.Records ?? [], { deadline, afterDrive: (sessionId) => settleInvestigation(runtime, sessionId) });
}
