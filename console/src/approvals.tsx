import { useState } from 'react';
import type { StreamEvent } from '@zero/agent/wire';

/** A call that waits for a person, as the console shows it. */
export interface PendingCall {
  toolCallId: string;
  name: string;
}

/** A decision recorded on a call, by a member or by Zero (an expiry, an interruption): the wire's `approval` event's fields. */
export type ShownDecision = Pick<Extract<StreamEvent, { type: 'approval' }>, 'decision' | 'message' | 'by' | 'reason'>;

/** What a message needs to show and answer the session's approvals. */
export interface Approvals {
  pending: ReadonlyMap<string, PendingCall>;
  decided: ReadonlyMap<string, ShownDecision>;
  /** Editors and owners decide; a viewer sees the call wait. */
  canDecide: boolean;
  decide(toolCallId: string, decision: 'allow' | 'deny', message: string): Promise<void>;
}

/** Approve / deny, with an optional message the model reads, under a call that waits; who decided once it is decided. */
export function ApprovalView({ toolCallId, approvals }: { toolCallId: string; approvals: Approvals }) {
  const [message, setMessage] = useState('');
  const [sending, setSending] = useState(false);
  const decided = approvals.decided.get(toolCallId);
  if (decided) {
    const who = decided.by ? (decided.by.name ?? decided.by.id) : decided.reason === 'expired' ? 'nobody in time' : 'Zero';
    return (
      <div className={`approval approval-${decided.decision}`} data-testid="approval-decided">
        {decided.decision === 'allow' ? 'Approved' : 'Denied'} by {who}
        {decided.message ? `: ${decided.message}` : ''}
      </div>
    );
  }
  if (!approvals.pending.has(toolCallId)) return null;
  if (!approvals.canDecide) {
    return (
      <div className="approval" data-testid="approval-pending">
        Waits for an editor or owner to approve it
      </div>
    );
  }
  async function decide(decision: 'allow' | 'deny') {
    setSending(true);
    try {
      await approvals.decide(toolCallId, decision, message.trim());
    } finally {
      setSending(false);
    }
  }
  return (
    <div className="approval" data-testid="approval-pending">
      <input data-testid="approval-message" value={message} placeholder="Message (optional)" maxLength={2000} onChange={(e) => setMessage(e.target.value)} disabled={sending} />
      <button data-testid="approve" onClick={() => void decide('allow')} disabled={sending}>
        Approve
      </button>
      <button className="secondary" data-testid="deny" onClick={() => void decide('deny')} disabled={sending}>
        Deny
      </button>
    </div>
  );
}
