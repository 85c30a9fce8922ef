import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { memoryFileSchema, memoryListingSchema, memoryWrittenSchema } from '@zero/agent/wire';
import type * as z from 'zod';
import { api, type Credentials } from './api';

type Listing = z.output<typeof memoryListingSchema>;
type Open = { path: string; content: string; hash?: string };

/** The signed-in user's memory: what their agents remember, listed and edited in place. A stale save is refused (If-Match), never merged. */
export function MemoryPanel({ creds }: { creds: Credentials }) {
  const [listing, setListing] = useState<Listing>();
  const [open, setOpen] = useState<Open>();
  const [newPath, setNewPath] = useState('');
  const [message, setMessage] = useState<string>();

  const refresh = useCallback(async () => setListing(await api(creds, 'GET', '/memories/users/me', undefined, memoryListingSchema)), [creds]);
  useEffect(() => {
    void refresh().catch((error: Error) => setMessage(error.message));
  }, [refresh]);

  const url = (path: string) => `/memories/users/me/${path.split('/').map(encodeURIComponent).join('/')}`;
  const act = (work: () => Promise<void>) => () => void work().catch((error: Error) => setMessage(error.message));

  const view = (path: string) =>
    act(async () => {
      const file = await api(creds, 'GET', url(path), undefined, memoryFileSchema);
      setOpen({ path, content: file.content, hash: file.hash });
      setMessage(undefined);
    })();

  const save = act(async () => {
    if (!open) return;
    const condition: Record<string, string> = open.hash ? { 'if-match': open.hash } : { 'if-none-match': '*' };
    const written = await api(creds, 'PUT', url(open.path), { content: open.content }, memoryWrittenSchema, condition);
    setOpen({ ...open, hash: written.hash });
    setMessage(`Saved ${open.path}.`);
    await refresh();
  });

  const remove = act(async () => {
    if (!open) return;
    await api(creds, 'DELETE', url(open.path), undefined, undefined, open.hash ? { 'if-match': open.hash } : {});
    setMessage(`Deleted ${open.path}.`);
    setOpen(undefined);
    await refresh();
  });

  function create(event: FormEvent) {
    event.preventDefault();
    if (newPath.trim()) setOpen({ path: newPath.trim(), content: '' });
    setNewPath('');
  }

  return (
    <section className="memory" data-testid="memory-panel">
      <h3>Memory</h3>
      <p className="meta">
        What agents with <code>memory: user</code> remember about you: {listing ? `${listing.files.length} files, ${listing.used_bytes} of ${listing.limits.max_store_bytes} bytes` : '…'}. Agents read it as data, never as instructions.
      </p>
      <ul data-testid="memory-files">
        {listing?.files.map((f) => (
          <li key={f.path}>
            <button className="link" onClick={() => view(f.path)}>
              {f.path}
            </button>{' '}
            <span className="meta">{f.size} bytes</span>
          </li>
        ))}
      </ul>
      <form onSubmit={create}>
        <input data-testid="memory-new-path" placeholder="new file, e.g. preferences.md" value={newPath} onChange={(e) => setNewPath(e.target.value)} />
        <button type="submit">New file</button>
      </form>
      {open ? (
        <div className="memory-file">
          <h4 data-testid="memory-open-path">{open.path}</h4>
          <textarea data-testid="memory-content" rows={12} value={open.content} onChange={(e) => setOpen({ ...open, content: e.target.value })} />
          <button data-testid="memory-save" onClick={save}>
            Save
          </button>{' '}
          {open.hash ? (
            <button className="secondary" data-testid="memory-delete" onClick={remove}>
              Delete
            </button>
          ) : null}
        </div>
      ) : null}
      {message ? <p data-testid="memory-message">{message}</p> : null}
    </section>
  );
}
