import { useEffect, useState, type FormEvent } from 'react';
import { roleSchema, sessionWatchersResponseSchema, userIdSchema, type SessionDetail } from '@zero/agent/wire';
import { api, type Credentials } from './api';

const ROLES = roleSchema.options;
/** How often the panel asks who is watching. */
const WATCHERS_REFRESH_MS = 4000;

/** The ids of the members with a live view of the session open now, read again every few seconds. */
function useWatchers(creds: Credentials, sessionId: string): Set<string> {
  const [watching, setWatching] = useState<Set<string>>(new Set());
  useEffect(() => {
    let current = true;
    const read = () =>
      api(creds, 'GET', `/sessions/${sessionId}/watchers`, undefined, sessionWatchersResponseSchema).then(
        ({ watchers }) => current && setWatching(new Set(watchers.map((w) => w.user_id))),
        () => undefined,
      );
    void read();
    const timer = setInterval(() => void read(), WATCHERS_REFRESH_MS);
    return () => {
      current = false;
      clearInterval(timer);
    };
  }, [creds, sessionId]);
  return watching;
}

/** Who is in the session; an owner adds people by user id, changes their roles and removes them. */
export function Members({ creds, detail, me, onChanged }: { creds: Credentials; detail: SessionDetail; me?: string; onChanged(): void }) {
  const [userId, setUserId] = useState('');
  const [name, setName] = useState('');
  const [role, setRole] = useState<(typeof ROLES)[number]>('editor');
  const [error, setError] = useState<string>();
  const owner = detail.role === 'owner';
  const base = `/sessions/${detail.session.session_id}/members`;
  const idProblem = userId.trim() ? userIdSchema.safeParse(userId.trim()).error?.issues[0]?.message : undefined;
  const already = detail.members.some((m) => m.user_id === userId.trim());
  const watching = useWatchers(creds, detail.session.session_id);
  const othersWatching = detail.members.filter((m) => m.user_id !== me && watching.has(m.user_id)).length;

  async function call(method: string, path: string, body?: unknown) {
    try {
      await api(creds, method, path, body);
      setError(undefined);
      onChanged();
      return true;
    } catch (err) {
      setError((err as Error).message);
      return false;
    }
  }
  async function add(e: FormEvent) {
    e.preventDefault();
    if (idProblem || already) return;
    if (await call('PUT', `${base}/${encodeURIComponent(userId.trim())}`, { role, ...(name.trim() ? { name: name.trim() } : {}) })) {
      setUserId('');
      setName('');
    }
  }
  return (
    <details className="members">
      <summary data-testid="members">
        {detail.members.length} member{detail.members.length === 1 ? '' : 's'}
        {othersWatching ? <span className="watching" data-testid="watching-count">{othersWatching} watching</span> : null}
      </summary>
      <div className="members-panel" data-testid="members-panel">
        <ul>
          {detail.members.map((m) => (
            <li key={m.user_id} data-testid="member" data-user-id={m.user_id}>
              <span className="member-name">
                {m.name ?? m.user_id}
                {m.name ? <span className="author-id"> {m.user_id}</span> : null}
                {m.user_id === me ? <span className="meta"> (you)</span> : null}
                {watching.has(m.user_id) ? (
                  <span className="watching" data-testid="member-watching">
                    watching now
                  </span>
                ) : null}
              </span>
              {owner && m.user_id !== me ? (
                <>
                  <select aria-label={`Role of ${m.name ?? m.user_id}`} data-testid="member-role" value={m.role} onChange={(e) => void call('PUT', `${base}/${encodeURIComponent(m.user_id)}`, { role: e.target.value })}>
                    {ROLES.map((r) => (
                      <option key={r} value={r}>
                        {r}
                      </option>
                    ))}
                  </select>
                  <button type="button" className="secondary small" data-testid="member-remove" aria-label={`Remove ${m.name ?? m.user_id}`} onClick={() => void call('DELETE', `${base}/${encodeURIComponent(m.user_id)}`)}>
                    Remove
                  </button>
                </>
              ) : (
                <span className="meta">{m.role}</span>
              )}
            </li>
          ))}
        </ul>
        {owner ? (
          <form onSubmit={(e) => void add(e)} noValidate>
            <input aria-label="User id" placeholder="user id" data-testid="member-id" value={userId} onChange={(e) => setUserId(e.target.value)} aria-invalid={Boolean(idProblem || already)} required />
            <input aria-label="Name (optional)" placeholder="name (optional)" value={name} onChange={(e) => setName(e.target.value)} />
            <select aria-label="Role" value={role} onChange={(e) => setRole(e.target.value as typeof role)}>
              {ROLES.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
            <button type="submit" disabled={!userId.trim() || Boolean(idProblem) || already}>
              Add
            </button>
            {idProblem || already ? (
              <p className="error-text field-error" data-testid="member-id-problem">
                {already ? 'Already a member.' : `A user id ${idProblem}.`}
              </p>
            ) : null}
          </form>
        ) : null}
        {error ? (
          <p className="error" role="alert">
            {error}
          </p>
        ) : null}
      </div>
    </details>
  );
}
