import { useCallback, useEffect, useState, type ChangeEvent } from 'react';
import { projectFilesSchema, projectIdSchema, projectListSchema, projectReportsSchema } from '@zero/agent/wire';
import type * as z from 'zod';
import { api, keyFetch, type Credentials } from './api';
import { uploadArchive, type UploadProgress } from './archive-upload';
import { Markdown } from './markdown';

type Area = 'files' | 'reports';
type Listed = z.output<typeof projectFilesSchema>['files'];
type Opened = { area: Area; path: string; url: string; type: string; text?: string };

const pathUrl = (path: string) => path.split('/').map(encodeURIComponent).join('/');
const TEXT = /\.(md|markdown|txt|json|ya?ml|toml|ts|tsx|js|jsx|mjs|py|go|rs|java|sh|css|html?|xml|csv|sql|lock|gitignore|env\.example)$/i;

/** Projects: pick one, browse its files and the reports agents wrote (Markdown rendered, PDFs opened), download them, upload a folder or a .tar.gz. */
export function ProjectsPanel({ creds }: { creds: Credentials }) {
  const [projects, setProjects] = useState<z.output<typeof projectListSchema>['projects']>();
  const [project, setProject] = useState<string>();
  const [area, setArea] = useState<Area>('reports');
  const [listing, setListing] = useState<Listed>();
  const [opened, setOpened] = useState<Opened>();
  const [target, setTarget] = useState('');
  const [message, setMessage] = useState<string>();
  const [busy, setBusy] = useState(false);
  const [progress, setProgress] = useState<UploadProgress & { name: string }>();

  const refreshProjects = useCallback(async () => setProjects((await api(creds, 'GET', '/projects', undefined, projectListSchema)).projects), [creds]);
  useEffect(() => {
    void refreshProjects().catch((error: Error) => setMessage(error.message));
  }, [refreshProjects]);
  const refreshListing = useCallback(async () => {
    if (!project) return;
    setListing(undefined);
    const base = `/projects/${project}/${area}`;
    setListing(area === 'files' ? (await api(creds, 'GET', base, undefined, projectFilesSchema)).files : (await api(creds, 'GET', base, undefined, projectReportsSchema)).reports);
  }, [creds, project, area]);
  useEffect(() => {
    void refreshListing().catch((error: Error) => setMessage(error.message));
  }, [refreshListing]);
  // A downloaded file's object URL lives while it is shown.
  useEffect(() => () => (opened ? URL.revokeObjectURL(opened.url) : undefined), [opened]);

  async function open(path: string) {
    setMessage(undefined);
    const response = await keyFetch(`${creds.baseUrl}/api/v2/projects/${project}/${area}/${pathUrl(path)}`, { headers: { authorization: `Bearer ${creds.key}` } });
    if (!response.ok) return setMessage(`Could not open ${path} (HTTP ${response.status}).`);
    const blob = await response.blob();
    const type = response.headers.get('content-type') ?? blob.type;
    const text = TEXT.test(path) || type.startsWith('text/') ? await blob.text() : undefined;
    setOpened({ area, path, url: URL.createObjectURL(blob), type, text });
  }

  /** Uploads into the chosen project, or into the one named in the box (the first writer of a new project owns it). */
  const into = () => project ?? target.trim();
  async function upload(work: (id: string) => Promise<string>) {
    const id = into();
    const valid = projectIdSchema.safeParse(id);
    if (!valid.success) return setMessage(`Name the project as owner/repo first (${valid.error.issues[0]?.message ?? 'invalid'}).`);
    setBusy(true);
    try {
      setMessage(await work(id));
      await refreshProjects();
      setProject(id);
      await refreshListing();
    } catch (error) {
      setMessage((error as Error).message);
    } finally {
      setBusy(false);
      setProgress(undefined);
    }
  }
  function onArchiveChosen(e: ChangeEvent<HTMLInputElement>) {
    const file = e.target.files?.[0];
    e.target.value = '';
    if (!file) return;
    void upload(async (id) => {
      setMessage(undefined);
      const done = await uploadArchive(creds, id, file, (p) => setProgress({ ...p, name: file.name }));
      return `Uploaded ${done.files} files (${done.bytes.toLocaleString()} bytes) from ${file.name}${done.skipped_count ? `; ${done.skipped_count} entries skipped` : ''}.`;
    });
  }
  function uploadFolder(e: ChangeEvent<HTMLInputElement>) {
    const files = [...(e.target.files ?? [])];
    e.target.value = '';
    if (!files.length) return;
    void upload(async (id) => {
      for (const file of files) {
        // The chosen folder's own name is not part of the project's paths.
        const path = (file.webkitRelativePath || file.name).split('/').slice(1).join('/') || file.name;
        const response = await keyFetch(`${creds.baseUrl}/api/v2/projects/${id}/files/${pathUrl(path)}`, {
          method: 'PUT',
          headers: { authorization: `Bearer ${creds.key}`, 'content-type': 'application/octet-stream' },
          body: file,
        });
        if (!response.ok) throw new Error(`Uploading ${path} failed: ${((await response.json().catch(() => ({}))) as { error?: { message?: string } }).error?.message ?? `HTTP ${response.status}`}`);
      }
      return `Uploaded ${files.length} files.`;
    });
  }

  return (
    <section className="projects" data-testid="projects">
      <div className="projects-bar">
        <label>
          Project
          <select data-testid="project-pick" value={project ?? ''} onChange={(e) => (setProject(e.target.value || undefined), setOpened(undefined))}>
            <option value="">{projects?.length ? 'choose…' : 'none yet'}</option>
            {projects?.map((p) => (
              <option key={p.id} value={p.id}>
                {p.id}
              </option>
            ))}
          </select>
        </label>
        {!project ? <input aria-label="New project (owner/repo)" placeholder="new project: owner/repo" value={target} onChange={(e) => setTarget(e.target.value)} /> : null}
        <label className="upload">
          Upload .tar.gz
          <input type="file" data-testid="upload-archive" accept=".tar.gz,.tgz,application/gzip" onChange={onArchiveChosen} disabled={busy} />
        </label>
        <label className="upload">
          Upload folder
          <input type="file" data-testid="upload-folder" multiple onChange={uploadFolder} disabled={busy} {...{ webkitdirectory: '' }} />
        </label>
      </div>
      {progress ? <UploadStatus progress={progress} /> : null}
      {message ? (
        <p className="note" role="status" data-testid="projects-message">
          {message}
        </p>
      ) : null}
      {project ? (
        <div className="projects-body">
          <div className="tabs" role="tablist" aria-label="What to browse">
            {(['reports', 'files'] as const).map((a) => (
              <button key={a} role="tab" aria-selected={area === a} className={area === a ? '' : 'secondary'} data-testid={`tab-${a}`} onClick={() => (setArea(a), setOpened(undefined))}>
                {a === 'reports' ? 'Reports' : 'Files'}
              </button>
            ))}
          </div>
          <ul className="file-list" data-testid="file-list">
            {listing?.length === 0 ? <li className="empty">{area === 'reports' ? 'No reports yet: agents write them with render_report.' : 'No files yet: upload a folder or a .tar.gz.'}</li> : null}
            {listing?.map((f) => (
              <li key={f.path}>
                <button type="button" className="link" data-testid="open-file" onClick={() => void open(f.path)}>
                  {f.path}
                </button>
                <span className="meta">{f.size.toLocaleString()} bytes</span>
              </li>
            ))}
          </ul>
          {opened ? <Viewer opened={opened} /> : null}
        </div>
      ) : null}
    </section>
  );
}

/** An archive on its way: a bar while its bytes go out (to Zero, or straight to the bucket), then a line while Zero unpacks it. */
function UploadStatus({ progress }: { progress: UploadProgress & { name: string } }) {
  if (progress.stage === 'applying') {
    return (
      <p className="note" role="status" data-testid="upload-progress">
        Unpacking {progress.name} into the project…
      </p>
    );
  }
  const percent = progress.total ? Math.floor((progress.sent / progress.total) * 100) : 0;
  return (
    <p className="note" role="status" data-testid="upload-progress">
      <label>
        Sending {progress.name}
        {progress.viaStorage ? ' straight to storage' : ''}: {percent}% of {progress.total.toLocaleString()} bytes{' '}
        <progress max={progress.total} value={progress.sent} />
      </label>
    </p>
  );
}

/** One opened file: Markdown rendered, a PDF in the browser's viewer, other text as it is; always a download link. */
function Viewer({ opened }: { opened: Opened }) {
  const name = opened.path.split('/').at(-1) ?? opened.path;
  const isPdf = opened.type.includes('pdf') || /\.pdf$/i.test(opened.path);
  return (
    <article className="viewer" data-testid="viewer" aria-label={opened.path}>
      <header className="viewer-bar">
        <strong>{opened.path}</strong>
        <a href={opened.url} download={name} data-testid="download">
          Download
        </a>
        {isPdf ? (
          <a href={opened.url} target="_blank" rel="noopener noreferrer">
            Open in a new tab
          </a>
        ) : null}
      </header>
      {isPdf ? (
        <iframe title={`PDF: ${opened.path}`} data-testid="pdf" src={opened.url} />
      ) : /\.(md|markdown)$/i.test(opened.path) && opened.text !== undefined ? (
        <Markdown text={opened.text} />
      ) : opened.text !== undefined ? (
        <pre data-testid="file-text">{opened.text}</pre>
      ) : (
        <p className="empty">No preview for this file; download it.</p>
      )}
    </article>
  );
}
