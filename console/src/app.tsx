import { Suspense, lazy, useCallback, useEffect, useRef, useState, type FormEvent } from 'react';
import { MemoryPanel } from './memory';
import { ProjectsPanel } from './projects';
import { meResponseSchema, sessionDetailSchema, sessionListSchema, type AgentInfo as Agent, type Me, type SessionDetail } from '@zero/agent/wire';
import { Members } from './members';
import { SessionsList, type ListedSession } from './sessions-list';
import { ApiError, api, loadAgents, onKeyRefused, type Credentials } from './api';
import { ChatView } from './chat-view';

const STORAGE_KEY = 'zero.console.credentials';
/** Few open the usage page: its code is a chunk of its own, fetched on opening. */
const UsagePanel = lazy(() => import('./usage'));
/** Nor the evals page (its chart included). */
const EvalsPanel = lazy(() => import('./evals'));

function storedCredentials(): Credentials | undefined {
  try {
    const value = JSON.parse(localStorage.getItem(STORAGE_KEY) ?? 'null') as Credentials | null;
    return value?.key ? value : undefined;
  } catch {
    return undefined;
  }
}

/** The selected session lives in the URL (`#/s/<id>`), so a reload shows the same one. */
function sessionFromHash(): string | undefined {
  return /^#\/s\/([A-Za-z0-9_-]+)$/.exec(location.hash)?.[1];
}

export function App() {
  const [creds, setCreds] = useState<Credentials | undefined>(storedCredentials);
  const [agents, setAgents] = useState<Agent[]>();
  const [failure, setFailure] = useState<string>();

  useEffect(() => {
    if (!creds) return;
    loadAgents(creds).then(setAgents, (error: unknown) => {
      if (error instanceof ApiError && error.status === 401) signOut();
      setFailure((error as Error).message);
    });
  }, [creds]);

  // A key refused later (revoked, or a development server started with a new key) ends the sign-in, with the reason.
  useEffect(
    () =>
      onKeyRefused(() => {
        if (!storedCredentials()) return;
        signOut();
        setFailure('The server no longer accepts this key (it was revoked, or the server now has another). Sign in again.');
      }),
    [],
  );

  function signOut() {
    localStorage.removeItem(STORAGE_KEY);
    setCreds(undefined);
    setAgents(undefined);
  }

  if (!creds) return <SignIn onSignedIn={setCreds} failure={failure} />;
  if (!agents) return <p className="loading">{failure ?? 'Loading…'}</p>;
  return <Workspace creds={creds} agents={agents} onSignOut={signOut} />;
}

function SignIn({ onSignedIn, failure }: { onSignedIn(creds: Credentials): void; failure?: string }) {
  const [key, setKey] = useState('');
  const [baseUrl, setBaseUrl] = useState(location.origin);
  const [error, setError] = useState(failure);
  async function submit(e: FormEvent) {
    e.preventDefault();
    const creds = { key: key.trim(), baseUrl: baseUrl.replace(/\/+$/, '') };
    try {
      await loadAgents(creds);
    } catch (err) {
      setError(err instanceof ApiError && err.status === 401 ? 'That key is not valid.' : (err as Error).message);
      return;
    }
    localStorage.setItem(STORAGE_KEY, JSON.stringify(creds));
    onSignedIn(creds);
  }
  return (
    <form className="sign-in" onSubmit={(e) => void submit(e)}>
      <h1>Zero</h1>
      <label>
        API key
        <input data-testid="api-key" type="password" autoComplete="off" value={key} onChange={(e) => setKey(e.target.value)} required />
      </label>
      <details>
        <summary>Server</summary>
        <label>
          API URL
          <input data-testid="api-url" value={baseUrl} onChange={(e) => setBaseUrl(e.target.value)} />
        </label>
      </details>
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
      <button type="submit" data-testid="sign-in">
        Sign in
      </button>
    </form>
  );
}

/** Runs a background read; a refused key is not its failure to report (the console returns to sign-in for it). */
async function signedIn(work: Promise<unknown>): Promise<void> {
  try {
    await work;
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
}

/** How often the sessions list is read again, for the unread dots. */
const LIST_REFRESH_MS = 20_000;

function Workspace({ creds, agents, onSignOut }: { creds: Credentials; agents: Agent[]; onSignOut(): void }) {
  const [sessions, setSessions] = useState<ListedSession[]>();
  /** Ids of new chats opened here: no session exists for them until the first message, so nothing is fetched. */
  const fresh = useRef(new Set<string>());
  const [selected, setSelected] = useState<string>(() => sessionFromHash() ?? freshChat(fresh.current));
  /** What the server said of a session, with the id it is of: a detail read for another session is never shown for this one. */
  const [loaded, setLoaded] = useState<{ id: string; detail: SessionDetail | 'missing' }>();
  const detail = loaded?.id === selected ? loaded.detail : fresh.current.has(selected) ? 'missing' : undefined;
  /** The session shown now: a read that comes back after the user moved on is dropped. */
  const selectedNow = useRef(selected);
  selectedNow.current = selected;
  const [me, setMe] = useState<Me>();
  const [menuOpen, setMenuOpen] = useState(false);
  const [memoryOpen, setMemoryOpen] = useState(false);
  const [projectsOpen, setProjectsOpen] = useState(false);
  const [usageOpen, setUsageOpen] = useState(false);
  const [evalsOpen, setEvalsOpen] = useState(false);

  /** Opening a session, or leaving one followed live, is reading it (the server records as much). */
  const markRead = useCallback((id: string) => setSessions((list) => list?.map((s) => (s.session_id === id && s.unread ? { ...s, unread: false } : s))), []);
  useEffect(() => () => markRead(selected), [selected, markRead]);
  const searchSessions = useCallback(
    async (words: string) => (await api(creds, 'GET', `/sessions?limit=100&q=${encodeURIComponent(words)}`, undefined, sessionListSchema)).sessions,
    [creds],
  );
  const refreshList = useCallback(async () => {
    setSessions((await api(creds, 'GET', '/sessions?limit=100', undefined, sessionListSchema)).sessions);
  }, [creds]);

  const loadDetail = useCallback(
    async (id: string) => {
      try {
        const read = await api(creds, 'GET', `/sessions/${id}`, undefined, sessionDetailSchema);
        if (selectedNow.current === id) setLoaded({ id, detail: read });
        fresh.current.delete(id);
        markRead(id);
      } catch (error) {
        // A chat whose first message has not been sent: the message creates the session.
        if (error instanceof ApiError && error.status === 404) {
          if (selectedNow.current === id) setLoaded({ id, detail: 'missing' });
        }
        else throw error;
      }
    },
    [creds, markRead],
  );

  useEffect(() => {
    void signedIn(refreshList());
    void signedIn(api(creds, 'GET', '/me', undefined, meResponseSchema).then(({ user }) => setMe(user)));
  }, [refreshList, creds]);
  useEffect(() => {
    // Other members' news shows without a reload.
    const timer = setInterval(() => void refreshList().catch(() => undefined), LIST_REFRESH_MS);
    return () => clearInterval(timer);
  }, [refreshList]);
  useEffect(() => {
    if (!fresh.current.has(selected)) void signedIn(loadDetail(selected));
  }, [selected, loadDetail]);
  useEffect(() => {
    const onHash = () => {
      const id = sessionFromHash();
      if (id) setSelected(id);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  function closePanels() {
    setMenuOpen(false);
    setMemoryOpen(false);
    setProjectsOpen(false);
    setUsageOpen(false);
    setEvalsOpen(false);
  }
  function startNew() {
    const id = freshChat(fresh.current);
    // The URL names a session once it exists.
    history.replaceState(null, '', location.pathname + location.search);
    setSelected(id);
    closePanels();
  }

  const current = detail && detail !== 'missing' ? detail : undefined;
  return (
    <div className="workspace">
      <aside className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Sessions and account">
        <button data-testid="new-session" onClick={startNew}>
          New session
        </button>
        <SessionsList sessions={sessions} selected={selected} onOpen={closePanels} search={searchSessions} />
        <div className="panel-buttons">
          <button className="secondary" data-testid="open-projects" onClick={() => (closePanels(), setProjectsOpen(true))}>
            Projects
          </button>
          <button className="secondary" data-testid="open-memory" onClick={() => (closePanels(), setMemoryOpen(true))}>
            Memory
          </button>
          <button className="secondary" data-testid="open-usage" onClick={() => (closePanels(), setUsageOpen(true))}>
            Usage
          </button>
          <button className="secondary" data-testid="open-evals" onClick={() => (closePanels(), setEvalsOpen(true))}>
            Evals
          </button>
        </div>
        <div className="account" data-testid="account">
          <span className="account-name">
            {me ? (me.name ?? me.id) : '…'}
            {me?.name ? <span className="author-id"> {me.id}</span> : null}
          </span>
          <span className="meta" data-testid="account-role">
            {me ? (me.admin ? 'administrator' : 'user') : ''}
            {current ? ` · ${current.role} of this session` : ''}
          </span>
          <button className="secondary" data-testid="sign-out" onClick={onSignOut}>
            Sign out
          </button>
        </div>
      </aside>
      <main>
        <header className="topbar">
          <button className="secondary menu" onClick={() => setMenuOpen(!menuOpen)} aria-label="Sessions" aria-expanded={menuOpen}>
            ☰
          </button>
          {memoryOpen || projectsOpen || usageOpen || evalsOpen ? (
            <h2 data-testid="panel-title">{memoryOpen ? 'Memory' : projectsOpen ? 'Projects' : usageOpen ? 'Usage' : 'Evals'}</h2>
          ) : (
            <SessionTitle
              key={selected}
              creds={creds}
              detail={current}
              onChanged={() => (void signedIn(refreshList()), void signedIn(loadDetail(selected)))}
              onDeleted={() => (void signedIn(refreshList()), startNew())}
            />
          )}
          {current && !memoryOpen && !projectsOpen && !usageOpen && !evalsOpen ? <Members creds={creds} detail={current} me={me?.id} onChanged={() => void signedIn(loadDetail(selected))} /> : null}
        </header>
        {memoryOpen ? (
          <MemoryPanel creds={creds} />
        ) : projectsOpen ? (
          <ProjectsPanel creds={creds} />
        ) : usageOpen ? (
          <Suspense fallback={<p className="loading">Loading…</p>}>
            <UsagePanel creds={creds} />
          </Suspense>
        ) : evalsOpen ? (
          <Suspense fallback={<p className="loading">Loading…</p>}>
            <EvalsPanel creds={creds} />
          </Suspense>
        ) : detail ? (
          <ChatView
            key={selected}
            creds={creds}
            sessionId={selected}
            agents={agents}
            detail={current}
            onChanged={() => {
              if (!sessionFromHash()) location.hash = `#/s/${selected}`;
              void signedIn(refreshList());
              void signedIn(loadDetail(selected));
            }}
            onListChanged={() => void signedIn(refreshList())}
            userId={me?.id}
          />
        ) : (
          <p className="loading">Loading…</p>
        )}
      </main>
    </div>
  );
}

/** The session's title, renamed in place by its editors; its owner may delete it (after saying so twice). */
function SessionTitle({ creds, detail, onChanged, onDeleted }: { creds: Credentials; detail?: SessionDetail; onChanged(): void; onDeleted(): void }) {
  const [editing, setEditing] = useState(false);
  const [title, setTitle] = useState('');
  const [confirming, setConfirming] = useState(false);
  const [error, setError] = useState<string>();
  if (!detail) return <h2 data-testid="session-title">New session</h2>;
  const id = detail.session.session_id;

  async function rename(e: FormEvent) {
    e.preventDefault();
    const next = title.trim();
    if (!next || next === detail!.session.title) return setEditing(false);
    try {
      await api(creds, 'PATCH', `/sessions/${id}`, { title: next });
      setEditing(false);
      setError(undefined);
      onChanged();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  async function remove() {
    try {
      await api(creds, 'DELETE', `/sessions/${id}`);
      onDeleted();
    } catch (err) {
      setError((err as Error).message);
    }
  }

  return (
    <div className="session-title">
      {editing ? (
        <form onSubmit={(e) => void rename(e)} className="rename">
          <input
            aria-label="Session title"
            data-testid="rename-input"
            value={title}
            maxLength={200}
            autoFocus
            onChange={(e) => setTitle(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                // Esc leaves the title as it was (and does not stop a run).
                e.preventDefault();
                setEditing(false);
              }
            }}
          />
          <button type="submit" data-testid="rename-save">
            Save
          </button>
        </form>
      ) : (
        <h2 data-testid="session-title" title={detail.session.title}>
          {detail.session.title}
        </h2>
      )}
      {!editing && detail.role !== 'viewer' ? (
        <button type="button" className="secondary small" data-testid="rename" onClick={() => (setTitle(detail.session.title), setEditing(true))}>
          Rename
        </button>
      ) : null}
      {!editing && detail.role === 'owner' ? (
        confirming ? (
          <span className="confirm" role="group" aria-label="Delete this session?">
            Delete for everyone?
            <button type="button" className="danger small" data-testid="delete-confirm" onClick={() => void remove()}>
              Delete
            </button>
            <button type="button" className="secondary small" onClick={() => setConfirming(false)}>
              Keep
            </button>
          </span>
        ) : (
          <button type="button" className="secondary small" data-testid="delete" onClick={() => setConfirming(true)}>
            Delete
          </button>
        )
      ) : null}
      {error ? (
        <p className="error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** A new chat's id, remembered as not yet a session. */
function freshChat(fresh: Set<string>): string {
  const id = crypto.randomUUID();
  fresh.add(id);
  return id;
}
