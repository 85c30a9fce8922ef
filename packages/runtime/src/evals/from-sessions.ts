import type { SessionStore } from '../store/session-store';
import { caseOutcome } from './case-outcome';
import type { EvalCase, SessionPick } from '@zero/agent/wire/evals';


/**
 * Cases from recorded sessions the user is a member of: each keeps the session's user messages in order,
 * its project (copied for each case when run), and optionally its last answer as the reference.
 * Sessions without a finished run are left out.
 */
export async function casesFromSessions(sessions: SessionStore, userId: string, pick: SessionPick): Promise<EvalCase[]> {
  const metas = pick.session_ids
    ? (await Promise.all(pick.session_ids.map(async (id) => ((await sessions.getMember(id, userId)) ? sessions.getSession(id) : undefined)))).filter((m) => !!m)
    : (await sessions.listSessionsFor(userId, 200, undefined, pick.tag ? { search: pick.tag } : {})).sessions;
  const chosen = metas
    .filter((m) => !pick.agent_id || m.agent_id === pick.agent_id)
    .filter((m) => !pick.since || m.created_at >= pick.since)
    .filter((m) => !pick.until || m.created_at <= pick.until)
    .slice(0, pick.limit);
  const cases: EvalCase[] = [];
  for (const meta of chosen) {
    const history = await sessions.readLog(meta.session_id);
    const messages = history.filter((r) => r.kind === 'user_message' && !r.parent_run_id).map((r) => (r as { text: string }).text);
    const outcome = caseOutcome(history);
    if (!messages.length || outcome.runsEnded === 0) continue;
    cases.push({
      id: meta.session_id.replace(/[^A-Za-z0-9_.-]/g, '_').slice(0, 64),
      messages: messages.slice(0, 20),
      ...(meta.project_id ? { project_id: meta.project_id } : {}),
      ...(pick.include_reference && outcome.answer ? { reference: outcome.answer } : {}),
      source_session_id: meta.session_id,
    });
  }
  return cases;
}
