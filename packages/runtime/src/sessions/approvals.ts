import type { LogRecord } from '../store/records';
import type { StreamEvent } from '@zero/agent/wire';

/** The roles whose members may decide a call that waits for a person. */
export const APPROVERS = ['owner', 'editor'] as const;

/** How long a call waits for a decision before it is denied, unless the deployment says otherwise (`ZERO_APPROVAL_TTL_MS`). */
export const DEFAULT_APPROVAL_TTL_MS = 24 * 60 * 60 * 1000;

type ApprovalRecord = Extract<LogRecord, { kind: 'approval' }>;
type RequestRecord = Extract<LogRecord, { kind: 'approval_request' }>;

/** A call that waits for a decision, as members see it. */
export interface PendingApproval {
  /** `client_tool`: the call waits for a client's result, not a decision. */
  kind: 'approval' | 'client_tool';
  tool_call_id: string;
  name: string;
  input: unknown;
  policy: string;
  requested_at: string;
  expires_at: string;
}

/** A run that waits for decisions: it has no lease and nothing runs until the last of `pending` is decided. */
export interface WaitingRun {
  runId: string;
  /** The calls still undecided, in the order they were asked. */
  pending: RequestRecord[];
}

/**
 * Whether `runId` is `rootRunId` or one of the runs it delegated to, however deep: a delegated run's id
 * is its caller's, a colon and the caller's tool call (see run/delegate.ts).
 */
export const inRunFamily = (runId: string, rootRunId: string) => runId === rootRunId || runId.startsWith(`${rootRunId}:`);

/**
 * The run the log shows waiting: its last record (decisions aside) is a
 * `run_wait` and some call it waits for has no decision yet. A run whose
 * calls are all decided is not waiting: it is unfinished, and resumed.
 * A call it waits for may be one of a delegated run's (that run asked a person;
 * its request and decision carry that run's id): it waits as the run's own.
 */
export function waitingRun(history: readonly LogRecord[]): WaitingRun | undefined {
  for (let i = history.length - 1; i >= 0; i--) {
    const record = history[i]!;
    if (record.kind === 'void' || record.kind === 'approval' || record.parent_run_id) continue;
    if (record.kind !== 'run_wait') return undefined;
    const ours = (r: LogRecord) => inRunFamily(r.run_id, record.run_id);
    // Decisions come after the wait they answer: a call may wait twice (a person's approval, then a client's result).
    const decided = new Set(history.slice(i + 1).filter((r): r is ApprovalRecord => r.kind === 'approval' && ours(r)).map((r) => r.tool_use_id));
    const undecided = new Set(record.pending.filter((id) => !decided.has(id)));
    if (undecided.size === 0) return undefined;
    // Each call's latest request is what it waits for now.
    const latest = new Map<string, RequestRecord>();
    for (const r of history.slice(0, i)) if (r.kind === 'approval_request' && ours(r) && undecided.has(r.tool_use_id)) latest.set(r.tool_use_id, r);
    return { runId: record.run_id, pending: [...latest.values()] };
  }
  return undefined;
}

/** The decision recorded for a call of `runId`, if any (a resumed run reads it instead of asking again). */
export function decisionOf(history: readonly LogRecord[], runId: string, toolCallId: string): ApprovalRecord | undefined {
  return history.findLast((r): r is ApprovalRecord => r.kind === 'approval' && r.run_id === runId && r.tool_use_id === toolCallId);
}

/**
 * The answer recorded for a client tool's call of `runId`, once it was handed to a client (its
 * `client_tool` request is in the log): `asked` false before that. A decision recorded before the
 * request (the permission policy's approval of the call) is not its answer.
 */
export function clientAnswerOf(history: readonly LogRecord[], runId: string, toolCallId: string): { asked: boolean; answer?: ApprovalRecord } {
  const at = history.findLastIndex((r) => r.kind === 'approval_request' && r.run_id === runId && r.tool_use_id === toolCallId && r.client_tool);
  if (at < 0) return { asked: false };
  return { asked: true, answer: decisionOf(history.slice(at + 1), runId, toolCallId) };
}

/** Whether a call of `runId` was already asked about (its request is in the log). */
export function askedBefore(history: readonly LogRecord[], runId: string, toolCallId: string): boolean {
  return history.some((r) => r.kind === 'approval_request' && r.run_id === runId && r.tool_use_id === toolCallId);
}

/** A waiting call as members see it (GET /sessions/:id). */
export function pendingApproval(request: RequestRecord, ttlMs: number): PendingApproval {
  return {
    kind: request.client_tool ? 'client_tool' : 'approval',
    tool_call_id: request.tool_use_id,
    name: request.name,
    input: request.input,
    policy: request.policy,
    requested_at: request.at,
    expires_at: new Date(Date.parse(request.at) + ttlMs).toISOString(),
  };
}

/** The `approval` event that reports a decision. */
export function approvalEvent(record: ApprovalRecord): Extract<StreamEvent, { type: 'approval' }> {
  return {
    type: 'approval',
    id: record.tool_use_id,
    decision: record.decision,
    ...(record.message ? { message: record.message } : {}),
    ...(record.by ? { by: record.by } : {}),
    ...(record.reason ? { reason: record.reason } : {}),
    at: record.at,
    run_id: record.run_id,
  };
}

/** Who denied a call, as the model reads it: the member, or Zero for an expiry or an interruption (its `message` says which). */
export function deciderName(record: ApprovalRecord): string {
  return record.by?.name ?? record.by?.id ?? 'Zero';
}
