import type { StreamEvent } from '@zero/agent/wire';
import type { LogRecord, NewLogRecord } from '../store/records';
import type { ApprovalAnswer, ApprovalRequest } from '../tools/tool';
import { APPROVERS, askedBefore, decisionOf, deciderName } from './approvals';

/** The run that asks: its id, the agent that answers in it (read when it asks), and how it records and reports. */
export interface AskingRun {
  runId: string;
  agentId: () => string | undefined;
  append: (record: NewLogRecord) => Promise<void>;
  emit: (event: StreamEvent) => void;
}

/** Builds a run's `requestApproval` port: see `askPerson`. */
export type ApprovalPort = (run: AskingRun) => (request: ApprovalRequest) => Promise<ApprovalAnswer>;

/**
 * A run's `requestApproval` port over the session log (`history`, the log as the run knows it): a call the policy
 * marks `ask` is answered by its recorded decision when it has one (a resumed run), else recorded as waiting
 * (once) and reported (`confirmation_required`, tagged with the run); the run then waits once its step's other
 * calls are done. The same for a top-level run and a delegated one: a delegated run's request is recorded
 * with its own run id (and its caller's), and its caller waits on it (see `waitingRun`).
 */
export const askPerson =
  (history: readonly LogRecord[]): ApprovalPort =>
  ({ runId, agentId, append, emit }) =>
  async (request) => {
    const decided = decisionOf(history, runId, request.toolCallId);
    if (decided) return { decision: decided.decision, ...(decided.message ? { message: decided.message } : {}), by: deciderName(decided) };
    if (!askedBefore(history, runId, request.toolCallId)) {
      await append({ kind: 'approval_request', run_id: runId, tool_use_id: request.toolCallId, name: request.name, input: request.input, policy: request.policy });
      emit({ type: 'confirmation_required', id: request.toolCallId, name: request.name, input: request.input, policy: request.policy, may_answer: [...APPROVERS], agent_id: agentId(), run_id: runId });
    }
    return { decision: 'wait' };
  };
