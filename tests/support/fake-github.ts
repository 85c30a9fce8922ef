import { createHash, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tarGz } from './archive';

/** One request the fake received, as a test inspects it. */
export interface GitHubRequest {
  method: string;
  path: string;
  /** The Authorization header as sent (tests check it never reaches the download host). */
  authorization?: string;
  accept?: string;
  body?: unknown;
  host: 'api' | 'download';
}

export interface FakeComment {
  id: number;
  body: string;
  user: { login: string; type: string };
  created_at: string;
  updated_at: string;
}

export interface FakeCheckRun {
  id: number;
  name: string;
  head_sha: string;
  status: string;
  conclusion?: string;
  details_url?: string;
  output?: { title?: string; summary?: string };
}

interface Repo {
  private: boolean;
  /** Commits by sha: the files of the tree. */
  commits: Map<string, Record<string, string | Buffer>>;
  /** Branch and tag names to a commit sha. */
  refs: Map<string, string>;
  pulls: Map<number, { head: string; base: string; diff: string; title: string }>;
  comments: Map<number, FakeComment[]>;
}

/**
 * GitHub's REST API on loopback, as much of it as Zero uses: commits by ref
 * (the `sha` media type), the tarball with its 302 to a separate download
 * host (a second listener, so the redirect leaves the origin as GitHub's
 * does), a pull request and its diff, issue comments (list, create, update)
 * and check runs. Tokens are issued with an expiry and refused after it
 * ("Bad credentials", 401), as installation tokens are. GitHub Apps: an
 * App's JWT (RS256, checked against the public key the test registers, its
 * `iss`, `iat` and `exp`) finds a repository's installation and mints that
 * installation's tokens, which expire after `installationTokenTtlMs`.
 */
export class FakeGitHub {
  private api?: Server;
  private download?: Server;
  url = '';
  downloadUrl = '';
  readonly requests: GitHubRequest[] = [];
  readonly checkRuns: FakeCheckRun[] = [];
  private readonly repos = new Map<string, Repo>();
  private readonly tokens = new Map<string, number>();
  /** An installation token's repositories: it reads no others. */
  private readonly tokenRepos = new Map<string, Set<string>>();
  /** Short-lived download tokens in the redirect URL, as codeload's. */
  private readonly downloads = new Map<string, { repo: string; sha: string }>();
  private nextId = 1000;
  /** Statuses to answer the next matching API requests with, before answering normally. */
  private failures: { match: RegExp; status: number }[] = [];
  /** The login comments are posted as. */
  botLogin = 'zero-bot[bot]';
  /** The fake's clock: tokens' and JWTs' expiry are read by it (tests move it with Zero's). */
  now = () => Date.now();
  /** How long an installation token minted for an App lasts (GitHub's: an hour). */
  installationTokenTtlMs = 3_600_000;
  /** Installation tokens minted, in order. */
  readonly minted: { app: string; installation: number; token: string; expires_at: string }[] = [];
  private readonly apps = new Map<string, { publicKey: KeyObject; installations: Map<number, Set<string>> }>();

  /** Listens on loopback: the API on `port` (any free one by default), the download host on another. */
  async start(port = 0): Promise<this> {
    this.api = createServer((req, res) => void this.serve(req, res, 'api'));
    this.download = createServer((req, res) => void this.serve(req, res, 'download'));
    this.url = await listen(this.api, port);
    this.downloadUrl = await listen(this.download, 0);
    return this;
  }

  async stop(): Promise<void> {
    for (const server of [this.api, this.download]) {
      server?.closeAllConnections();
      await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    }
  }

  /** A token valid for `ttlMs` (an installation token lasts an hour; tests make theirs expire). */
  issueToken(ttlMs = 3_600_000): string {
    const token = `ghs_${randomBytes(18).toString('hex')}`;
    this.tokens.set(token, this.now() + ttlMs);
    return token;
  }

  /** Registers App `appId` by its public key and installs it on `repos`; returns the installation's id. */
  installApp(appId: string, publicKey: KeyObject, repos: string[]): number {
    const app = this.apps.get(appId) ?? { publicKey, installations: new Map() };
    this.apps.set(appId, app);
    const installation = this.nextId++;
    app.installations.set(installation, new Set(repos));
    return installation;
  }

  /** Every token issued so far stops working (revoked, or lapsed sooner than its holder thought). */
  expireTokens(): void {
    for (const token of this.tokens.keys()) this.tokens.set(token, 0);
  }

  /** Creates a repository (private by default: every read needs a token). */
  addRepo(fullName: string, options: { private?: boolean } = {}): void {
    this.repos.set(fullName, { private: options.private ?? true, commits: new Map(), refs: new Map(), pulls: new Map(), comments: new Map() });
  }

  /** Adds a commit with these files and points `ref` (a branch) at it; returns its sha. */
  commit(fullName: string, ref: string, files: Record<string, string | Buffer>): string {
    const repo = this.repo(fullName);
    const sha = createHash('sha1').update(`${fullName}:${ref}:${this.nextId++}:${JSON.stringify(Object.keys(files))}`).digest('hex');
    repo.commits.set(sha, files);
    repo.refs.set(ref, sha);
    return sha;
  }

  /** Opens (or moves the head of) pull request `number`. */
  pull(fullName: string, number: number, pr: { head: string; base: string; diff: string; title?: string }): void {
    this.repo(fullName).pulls.set(number, { title: `PR ${number}`, ...pr });
  }

  comments(fullName: string, number: number): FakeComment[] {
    return this.repo(fullName).comments.get(number) ?? [];
  }

  /** Adds a comment by someone else (a reviewer), so Zero must find its own among others. */
  addComment(fullName: string, number: number, body: string, login = 'octocat'): void {
    this.postComment(fullName, number, body, login);
  }

  /** The next `count` API requests whose path matches answer `status` (to test retries). */
  failNext(match: RegExp, status: number, count = 1): void {
    for (let i = 0; i < count; i++) this.failures.push({ match, status });
  }

  reset(): void {
    this.requests.length = 0;
    this.failures = [];
  }

  private repo(fullName: string): Repo {
    const repo = this.repos.get(fullName);
    if (!repo) throw new Error(`fake GitHub has no repository ${fullName}`);
    return repo;
  }

  private postComment(fullName: string, number: number, body: string, login: string): FakeComment {
    const repo = this.repo(fullName);
    const now = new Date().toISOString();
    const comment = { id: this.nextId++, body, user: { login, type: login.endsWith('[bot]') ? 'Bot' : 'User' }, created_at: now, updated_at: now };
    repo.comments.set(number, [...(repo.comments.get(number) ?? []), comment]);
    return comment;
  }

  private async serve(req: IncomingMessage, res: ServerResponse, host: 'api' | 'download'): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    const url = new URL(req.url ?? '/', 'http://fake');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      return json(res, 400, { message: 'Problems parsing JSON' });
    }
    this.requests.push({ method: req.method ?? 'GET', path: url.pathname + url.search, authorization: req.headers.authorization, accept: req.headers.accept, body, host });
    try {
      if (host === 'download') return await this.serveDownload(url, res);
      const failure = this.failures.findIndex((f) => f.match.test(url.pathname));
      if (failure >= 0) {
        const { status } = this.failures.splice(failure, 1)[0]!;
        return json(res, status, { message: 'Server Error' });
      }
      this.serveApi(req, url, body as Record<string, unknown> | undefined, res);
    } catch (error) {
      json(res, 500, { message: String(error) });
    }
  }

  private bearer(req: IncomingMessage): string {
    return /^(?:Bearer|token) (\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
  }

  private authorised(req: IncomingMessage): boolean | 'expired' | 'none' {
    const header = req.headers.authorization;
    if (!header) return 'none';
    const token = this.bearer(req);
    const expires = token ? this.tokens.get(token) : undefined;
    if (expires === undefined) return false;
    if (expires > this.now()) return true;
    return 'expired';
  }

  /** The App a request's JWT is signed by, or GitHub's 401 message refusing it. */
  private appOf(req: IncomingMessage): { app: string } | { refused: string } {
    const jwt = /^Bearer (\S+)$/i.exec(req.headers.authorization ?? '')?.[1] ?? '';
    const [header, payload, signature] = jwt.split('.');
    let claims: { iss?: unknown; iat?: unknown; exp?: unknown };
    try {
      if (JSON.parse(Buffer.from(header!, 'base64url').toString('utf8')).alg !== 'RS256') throw new Error('alg');
      claims = JSON.parse(Buffer.from(payload!, 'base64url').toString('utf8'));
    } catch {
      return { refused: 'A JSON web token could not be decoded' };
    }
    const app = this.apps.get(String(claims.iss));
    if (!app) return { refused: 'Integration not found' };
    if (!verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), app.publicKey, Buffer.from(signature ?? '', 'base64url'))) {
      return { refused: 'A JSON web token could not be decoded' };
    }
    const now = Math.floor(this.now() / 1000);
    if (typeof claims.iat !== 'number' || claims.iat > now + 60) return { refused: "'Issued at' claim ('iat') must be an Integer representing the time that the assertion was issued" };
    if (typeof claims.exp !== 'number' || claims.exp <= now) return { refused: "'Expiration time' claim ('exp') must be a numeric value representing the future time at which the assertion expires" };
    if (claims.exp - claims.iat > 600) return { refused: "'Expiration time' claim ('exp') is too far in the future" };
    return { app: String(claims.iss) };
  }

  /** `GET /repos/{o}/{r}/installation` and `POST /app/installations/{id}/access_tokens`, with an App's JWT. */
  /** The repositories each minted token may read, in order of minting. */
  readonly mintedFor: string[][] = [];

  private serveApp(req: IncomingMessage, url: URL, body: Record<string, unknown> | undefined, res: ServerResponse): boolean {
    const lookup = /^\/repos\/([^/]+\/[^/]+)\/installation$/.exec(url.pathname);
    const mint = /^\/app\/installations\/(\d+)\/access_tokens$/.exec(url.pathname);
    if (!(lookup && req.method === 'GET') && !(mint && req.method === 'POST')) return false;
    const caller = this.appOf(req);
    if ('refused' in caller) return json(res, 401, { message: caller.refused, documentation_url: 'https://docs.github.com/rest' }), true;
    const installations = this.apps.get(caller.app)!.installations;
    if (lookup) {
      const repo = decodeURIComponent(lookup[1]!);
      const id = [...installations].find(([, repos]) => repos.has(repo))?.[0];
      if (id === undefined) return json(res, 404, { message: 'Not Found', documentation_url: 'https://docs.github.com/rest/apps/apps#get-a-repository-installation-for-the-authenticated-app' }), true;
      return json(res, 200, { id, app_id: Number(caller.app), target_type: 'Organization', account: { login: repo.split('/')[0] } }), true;
    }
    const installation = Number(mint![1]);
    if (!installations.has(installation)) return json(res, 404, { message: 'Not Found' }), true;
    const token = this.issueToken(this.installationTokenTtlMs);
    const expires_at = new Date(this.tokens.get(token)!).toISOString();
    this.minted.push({ app: caller.app, installation, token, expires_at });
    // The token reads every repository of its installation, as one minted without `repositories` does, or only those it names.
    const all = installations.get(installation)!;
    const owner = [...all][0]?.split('/')[0];
    const named = Array.isArray(body?.repositories) ? new Set((body.repositories as string[]).map((name) => `${owner}/${name}`)) : undefined;
    if (named && [...named].some((repo) => !all.has(repo))) return json(res, 422, { message: 'There is at least one repository that does not exist or is not accessible to the parent installation.' }), true;
    this.tokenRepos.set(token, named ?? all);
    this.mintedFor.push([...(named ?? all)]);
    json(res, 201, { token, expires_at, permissions: { contents: 'read', pull_requests: 'write', checks: 'write' }, repository_selection: 'selected' });
    return true;
  }

  private serveApi(req: IncomingMessage, url: URL, body: Record<string, unknown> | undefined, res: ServerResponse): void {
    if (this.serveApp(req, url, body, res)) return;
    const match = /^\/repos\/([^/]+\/[^/]+)\/(.+)$/.exec(url.pathname);
    const repo = match ? this.repos.get(decodeURIComponent(match[1]!)) : undefined;
    const auth = this.authorised(req);
    if (auth === false || auth === 'expired') return json(res, 401, { message: 'Bad credentials', documentation_url: 'https://docs.github.com/rest' });
    const fullName = decodeURIComponent(match?.[1] ?? '');
    // A private repository answers 404 to an anonymous caller (and to an installation's token from elsewhere), as GitHub's does.
    if (!match || !repo || (repo.private && (auth !== true || this.tokenRepos.get(this.bearer(req))?.has(fullName) === false))) return json(res, 404, { message: 'Not Found' });
    const rest = match[2]!;
    const method = req.method ?? 'GET';
    const accept = req.headers.accept ?? '';
    let m: RegExpExecArray | null;

    if (method === 'GET' && (m = /^commits\/(.+)$/.exec(rest))) {
      const sha = resolveRef(repo, decodeURIComponent(m[1]!));
      if (!sha) return json(res, 422, { message: `No commit found for SHA: ${m[1]}` });
      if (accept.includes('application/vnd.github.sha')) return send(res, 200, 'application/vnd.github.sha', sha);
      return json(res, 200, { sha });
    }
    if (method === 'GET' && (m = /^tarball(?:\/(.+))?$/.exec(rest))) {
      const sha = resolveRef(repo, decodeURIComponent(m[1] ?? 'main'));
      if (!sha) return json(res, 404, { message: 'Not Found' });
      const ticket = randomBytes(12).toString('hex');
      this.downloads.set(ticket, { repo: fullName, sha });
      res.writeHead(302, { location: `${this.downloadUrl}/${fullName}/legacy.tar.gz/${sha}?token=${ticket}` }).end();
      return;
    }
    if (method === 'GET' && (m = /^pulls\/(\d+)$/.exec(rest))) {
      const pr = repo.pulls.get(Number(m[1]));
      if (!pr) return json(res, 404, { message: 'Not Found' });
      if (accept.includes('application/vnd.github.diff')) return send(res, 200, 'text/plain; charset=utf-8', pr.diff);
      return json(res, 200, { number: Number(m[1]), title: pr.title, head: { sha: pr.head }, base: { ref: pr.base } });
    }
    if ((m = /^issues\/(\d+)\/comments$/.exec(rest))) {
      const number = Number(m[1]);
      if (method === 'POST') {
        if (typeof body?.body !== 'string') return json(res, 422, { message: 'body is missing' });
        return json(res, 201, this.postComment(fullName, number, body.body, this.botLogin));
      }
      if (method === 'GET') {
        const perPage = Math.min(Number(url.searchParams.get('per_page') ?? 30), 100);
        const page = Number(url.searchParams.get('page') ?? 1);
        const all = repo.comments.get(number) ?? [];
        const headers: Record<string, string> = {};
        if (page * perPage < all.length) headers.link = `<${this.url}${url.pathname}?per_page=${perPage}&page=${page + 1}>; rel="next"`;
        return json(res, 200, all.slice((page - 1) * perPage, page * perPage), headers);
      }
    }
    if (method === 'PATCH' && (m = /^issues\/comments\/(\d+)$/.exec(rest))) {
      const comment = [...repo.comments.values()].flat().find((c) => c.id === Number(m![1]));
      if (!comment) return json(res, 404, { message: 'Not Found' });
      if (typeof body?.body !== 'string') return json(res, 422, { message: 'body is missing' });
      comment.body = body.body;
      comment.updated_at = new Date().toISOString();
      return json(res, 200, comment);
    }
    if (method === 'POST' && rest === 'check-runs') {
      if (typeof body?.name !== 'string' || typeof body?.head_sha !== 'string') return json(res, 422, { message: 'name and head_sha are required' });
      const run = { id: this.nextId++, ...(body as Omit<FakeCheckRun, 'id'>) };
      this.checkRuns.push(run);
      return json(res, 201, run);
    }
    json(res, 404, { message: 'Not Found' });
  }

  private async serveDownload(url: URL, res: ServerResponse): Promise<void> {
    const ticket = this.downloads.get(url.searchParams.get('token') ?? '');
    const m = /^\/([^/]+\/[^/]+)\/legacy\.tar\.gz\/([0-9a-f]{40})$/.exec(url.pathname);
    if (!ticket || !m || ticket.repo !== m[1] || ticket.sha !== m[2]) return send(res, 404, 'text/plain', 'Not Found');
    const files = this.repo(ticket.repo).commits.get(ticket.sha)!;
    // GitHub's tarballs hold one top folder, `<owner>-<repo>-<short sha>/`.
    const top = `${ticket.repo.replace('/', '-')}-${ticket.sha.slice(0, 7)}`;
    const archive = await tarGz([{ name: `${top}/`, type: 'directory' }, ...Object.entries(files).map(([path, body]) => ({ name: `${top}/${path}`, body }))]);
    res.writeHead(200, { 'content-type': 'application/x-gzip', 'content-length': archive.byteLength }).end(archive);
  }
}

function resolveRef(repo: Repo, ref: string): string | undefined {
  if (repo.commits.has(ref)) return ref;
  return repo.refs.get(ref.replace(/^refs\/(heads|tags)\//, ''));
}

function json(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers }).end(JSON.stringify(value));
}

function send(res: ServerResponse, status: number, contentType: string, body: string): void {
  res.writeHead(status, { 'content-type': contentType }).end(body);
}

async function listen(server: Server, port: number): Promise<string> {
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}
