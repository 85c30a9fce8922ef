import type { ApprovalChoice } from '@zero/client';
import { connect } from '../connect';

/** `zero approve|deny <session> <call>`: decides a waiting call; the run goes on once the last is decided. */
export async function decide(profile: string | undefined, sessionId: string, callId: string, choice: ApprovalChoice, message?: string): Promise<number> {
  const { client } = await connect(profile);
  let tool: string | undefined;
  if (choice === 'always') {
    const detail = await client.getSession(sessionId);
    tool = detail.awaiting_approval?.pending.find((p) => p.tool_call_id === callId)?.name;
  }
  const answer = await client.decide(sessionId, callId, choice, { message, tool });
  const rest = answer.pending.length ? `; still waiting: ${answer.pending.join(', ')}` : '; the run goes on';
  process.stderr.write(`${answer.decision === 'allow' ? 'allowed' : 'denied'} ${callId}${rest}\n`);
  return 0;
}
