import { handleRunJobs } from '@zero/core/sessions';
import { prepareInvestigation, settleInvestigation } from '@zero/core/webhooks';
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
  return handleRunJobs(runtime, event.Records ?? [], {
    deadline,
    // A webhook's job hydrates the hook's project from GitHub before the run, when the hook asks.
    beforeDrive: (job) => (job.reason === 'webhook' ? prepareInvestigation(runtime, job.session_id) : Promise.resolve()),
    afterDrive: (sessionId) => settleInvestigation(runtime, sessionId),
  });
}
