import { useEffect, useState } from 'react';
import type { SessionList } from '@zero/agent/wire';

export type ListedSession = SessionList['sessions'][number];

/** Most recent activity first (the API pages by creation; a session's `updated_at` follows its messages). */
export const byActivity = (a: ListedSession, b: ListedSession) => b.updated_at.localeCompare(a.updated_at);

/** "just now", "5 min ago", "3 h ago", else the date. */
export function sinceText(iso: string, now = Date.now()): string {
  const minutes = Math.round((now - Date.parse(iso)) / 60_000);
  if (minutes < 1) return 'just now';
  if (minutes < 60) return `${minutes} min ago`;
  if (minutes < 24 * 60) return `${Math.round(minutes / 60)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/** How long typing pauses before the search goes to the server. */
const SEARCH_DELAY_MS = 250;

/**
 * The sidebar's list: a search by title, then each session with its agent,
 * project, role, last activity and a dot when it has news the user has not
 * seen. The search filters the loaded sessions at once, then asks the server,
 * which also finds sessions past the first page.
 */
export function SessionsList({
  sessions,
  selected,
  onOpen,
  search,
}: {
  sessions: ListedSession[] | undefined;
  selected: string;
  onOpen(): void;
  search(words: string): Promise<ListedSession[]>;
}) {
  const [query, setQuery] = useState('');
  const words = query.trim().toLowerCase();
  const [found, setFound] = useState<{ words: string; sessions: ListedSession[] }>();
  useEffect(() => {
    if (!words) return setFound(undefined);
    let current = true;
    const timer = setTimeout(() => void search(words).then((sessions) => current && setFound({ words, sessions }), () => undefined), SEARCH_DELAY_MS);
    return () => {
      current = false;
      clearTimeout(timer);
    };
  }, [words, search, sessions]);
  const matching = found?.words === words ? found.sessions : (sessions ?? []).filter((s) => !words || s.title.toLowerCase().includes(words));
  const shown = [...matching].sort(byActivity);
  return (
    <>
      <input type="search" className="session-search" data-testid="session-search" aria-label="Search sessions by title" placeholder="Search sessions" value={query} onChange={(e) => setQuery(e.target.value)} />
      <nav data-testid="sessions" aria-label="Sessions">
        {sessions && sessions.length === 0 ? (
          <p className="empty" data-testid="sessions-empty">
            No sessions yet. Write a message to start one; it will be listed here.
          </p>
        ) : null}
        {sessions && sessions.length > 0 && shown.length === 0 ? <p className="empty">No session title contains “{query.trim()}”.</p> : null}
        {shown.map((s) => (
          <a
            key={s.session_id}
            href={`#/s/${s.session_id}`}
            className={s.session_id === selected ? 'active' : ''}
            aria-current={s.session_id === selected ? 'page' : undefined}
            data-testid="session-link"
            title={s.title}
            onClick={onOpen}
          >
            {/* The markers share the title's line: the title gives way (ellipsis), they never wrap below it. */}
            <span className="title-row">
              <span className="title">{s.title}</span>
              {s.unread && s.session_id !== selected ? <span className="unread-dot" data-testid="session-unread" role="img" aria-label="new activity" title="New activity since you last looked" /> : null}
              {s.awaiting_approval_since ? (
                <span className="badge" data-testid="session-waiting" title="A tool call waits for approval">
                  awaiting approval
                </span>
              ) : null}
            </span>
            <span className="meta" data-testid="session-meta">
              {s.agent_id}
              {s.project_id ? ` · ${s.project_id}` : ''}
              {s.role && s.role !== 'owner' ? ` · ${s.role}` : ''} · <time dateTime={s.updated_at}>{sinceText(s.updated_at)}</time>
            </span>
          </a>
        ))}
      </nav>
    </>
  );
}
