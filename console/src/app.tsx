import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { MemoryPanel } from './memory';
import { sessionDetailSchema, sessionListSchema, type AgentInfo as Agent, type SessionDetail, type SessionList } from '@zero/core/wire';
import { ApiError, api, loadAgents, type Credentials } from './api';
import { ChatView } from './chat-view';

const STORAGE_KEY = 'zero.console.credentials';

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

function Workspace({ creds, agents, onSignOut }: { creds: Credentials; agents: Agent[]; onSignOut(): void }) {
  const [sessions, setSessions] = useState<SessionList['sessions']>([]);
  const [selected, setSelected] = useState<string>(() => sessionFromHash() ?? newChatId());
  const [detail, setDetail] = useState<SessionDetail | 'missing'>();
  const [menuOpen, setMenuOpen] = useState(false);
  const [memoryOpen, setMemoryOpen] = useState(false);

  const refreshList = useCallback(async () => {
    setSessions((await api(creds, 'GET', '/sessions?limit=50', undefined, sessionListSchema)).sessions);
  }, [creds]);

  const loadDetail = useCallback(
    async (id: string) => {
      try {
        setDetail(await api(creds, 'GET', `/sessions/${id}`, undefined, sessionDetailSchema));
      } catch (error) {
        // A new chat's id: the first message creates the session.
        if (error instanceof ApiError && error.status === 404) setDetail('missing');
        else throw error;
      }
    },
    [creds],
  );

  useEffect(() => {
    void refreshList();
  }, [refreshList]);
  useEffect(() => {
    setDetail(undefined);
    void loadDetail(selected);
  }, [selected, loadDetail]);
  useEffect(() => {
    const onHash = () => {
      const id = sessionFromHash();
      if (id) setSelected(id);
    };
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);

  function open(id: string) {
    location.hash = `#/s/${id}`;
    setSelected(id);
    setMenuOpen(false);
    setMemoryOpen(false);
  }

  const current = detail && detail !== 'missing' ? detail : undefined;
  return (
    <div className="workspace">
      <aside className={menuOpen ? 'sidebar open' : 'sidebar'}>
        <button data-testid="new-session" onClick={() => open(newChatId())}>
          New session
        </button>
        <nav data-testid="sessions">
          {sessions.map((s) => (
            <a key={s.session_id} href={`#/s/${s.session_id}`} className={s.session_id === selected ? 'active' : ''} onClick={() => (setMenuOpen(false), setMemoryOpen(false))}>
              <span className="title">{s.title}</span>
              {s.awaiting_approval_since ? (
                <span className="badge" data-testid="session-waiting">
                  awaiting approval
                </span>
              ) : null}
              <span className="meta">
                {s.agent_id}
                {s.role && s.role !== 'owner' ? ` · ${s.role}` : ''}
              </span>
            </a>
          ))}
        </nav>
        <button className="secondary" data-testid="open-memory" onClick={() => (setMemoryOpen(true), setMenuOpen(false))}>
          Memory
        </button>
        <button className="secondary" data-testid="sign-out" onClick={onSignOut}>
          Sign out
        </button>
      </aside>
      <main>
        <header className="topbar">
          <button className="secondary menu" onClick={() => setMenuOpen(!menuOpen)} aria-label="Sessions">
            ☰
          </button>
          <h2 data-testid="session-title">{current?.session.title ?? 'New session'}</h2>
          {current ? <Members creds={creds} detail={current} onChanged={() => void loadDetail(selected)} /> : null}
        </header>
        {memoryOpen ? (
          <MemoryPanel creds={creds} />
        ) : detail ? (
          <ChatView
            key={selected}
            creds={creds}
            sessionId={selected}
            agents={agents}
            detail={current}
            onChanged={() => {
              if (!sessionFromHash()) location.hash = `#/s/${selected}`;
              void refreshList();
              void loadDetail(selected);
            }}
            onListChanged={() => void refreshList()}
          />
        ) : (
          <p className="loading">Loading…</p>
        )}
      </main>
    </div>
  );
}

/** Who is in the session; an owner can add someone by user id. */
function Members({ creds, detail, onChanged }: { creds: Credentials; detail: SessionDetail; onChanged(): void }) {
  const [userId, setUserId] = useState('');
  const [role, setRole] = useState('editor');
  const [error, setError] = useState<string>();
  async function add(e: FormEvent) {
    e.preventDefault();
    try {
      await api(creds, 'PUT', `/sessions/${detail.session.session_id}/members/${encodeURIComponent(userId.trim())}`, { role });
      setUserId('');
      setError(undefined);
      onChanged();
    } catch (err) {
      setError((err as Error).message);
    }
  }
  return (
    <details className="members">
      <summary data-testid="members">{detail.members.length} member{detail.members.length === 1 ? '' : 's'}</summary>
      <ul>
        {detail.members.map((m) => (
          <li key={m.user_id}>
            {m.name ?? m.user_id} <span className="meta">{m.role}</span>
          </li>
        ))}
      </ul>
      {detail.role === 'owner' ? (
        <form onSubmit={(e) => void add(e)}>
          <input placeholder="user id" value={userId} onChange={(e) => setUserId(e.target.value)} required />
          <select value={role} onChange={(e) => setRole(e.target.value)}>
            <option value="editor">editor</option>
            <option value="viewer">viewer</option>
            <option value="owner">owner</option>
          </select>
          <button type="submit">Add</button>
        </form>
      ) : null}
      {error ? <p className="error">{error}</p> : null}
    </details>
  );
}

function newChatId(): string {
  return crypto.randomUUID();
}
