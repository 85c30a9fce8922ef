import type * as z from 'zod';
import { agentListSchema, approvalResponseSchema, archiveUploadSchema, cancelResponseSchema, chatResultSchema, createdKeySchema, errorResponseSchema, keyListSchema, projectDetailSchema, projectListSchema, sessionDetailSchema, sessionListSchema, sessionMemberResponseSchema, sessionPermissionsSchema, sessionResponseSchema, switchAgentResponseSchema, uploadTicketSchema, type ChatRequestBody, type CreateSessionRequest, type PermissionMap, type Role, type UpdateSessionRequest, type UploadRequest, type UploadTicket, filesRewoundSchema, projectFilesSchema } from '@zero/agent/wire';
import { createEvalRunRequestSchema, datasetListSchema, datasetResponseSchema, evalReportSchema, evalRunListSchema, evalRunResponseSchema, type CreateDatasetRequest } from '@zero/agent/wire/evals';
import { ZeroApiError, ZeroConnectionError, ZeroProtocolError } from './errors';
import { RunStream, type FollowOptions } from './follow';

export interface ZeroClientOptions {
  /** The deployment's base URL, e.g. `http://127.0.0.1:8787`. */
  url: string;
  /** An API key or a JWT, sent as a bearer credential. */
  key?: string;
  /** How long to wait for a response's headers before the server counts as unreachable. */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

/** One request's body, headers and signal; `timeoutMs` replaces the client's wait for the answer's headers. */
export interface RequestOptions {
  body?: BodyInit;
  json?: unknown;
  headers?: Record<string, string>;
  signal?: AbortSignal;
  timeoutMs?: number;
}

/**
 * The wait for a completed upload's answer: Zero answers once the whole tree (up to the archive
 * limit, tens of thousands of S3 writes) is stored, well past the usual wait for headers. Lambda's
 * own ceiling, 15 minutes; the server was reached a moment before, when the upload was started.
 */
const APPLY_TIMEOUT_MS = 15 * 60_000;

/** A chat request as the client sends it; `stream` is set by the method called. */
export type ChatInput = Omit<ChatRequestBody, 'stream'>;

/** How a call that waits for approval is decided: `always` also allows the tool for the rest of the session. */
export type ApprovalChoice = 'allow' | 'deny' | 'always';

/**
 * A typed client of Zero's HTTP API (`/api/v2`). Every response is parsed with
 * the wire schema of `@zero/core/wire`; a refusal throws `ZeroApiError` with
 * Zero's error body, an unreachable server `ZeroConnectionError`.
 */
export class ZeroClient {
  readonly url: string;
  private readonly key?: string;
  private readonly timeoutMs: number;
  private readonly fetch: typeof fetch;

  constructor(options: ZeroClientOptions) {
    this.url = options.url.replace(/\/+$/, '');
    this.key = options.key;
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.fetch = options.fetch ?? globalThis.fetch;
  }

  /** Sends a request and returns the response once its headers are in; a refusal (4xx, 5xx) throws. */
  async send(method: string, path: string, init: RequestOptions = {}): Promise<Response> {
    const target = `${this.url}${path.startsWith('/health') ? '' : '/api/v2'}${path}`;
    const headers: Record<string, string> = { ...init.headers };
    if (this.key) headers.authorization = `Bearer ${this.key}`;
    if (init.json !== undefined) headers['content-type'] = 'application/json';
    // The timeout covers the wait for headers only: a stream may then run as long as the run does.
    const controller = new AbortController();
    const timeoutMs = init.timeoutMs ?? this.timeoutMs;
    const timer = setTimeout(() => controller.abort(new Error('timeout')), timeoutMs);
    const forward = () => controller.abort(init.signal?.reason);
    init.signal?.addEventListener('abort', forward, { once: true });
    let response: Response;
    try {
      response = await this.fetch(target, {
        method,
        headers,
        body: init.json !== undefined ? JSON.stringify(init.json) : init.body,
        signal: controller.signal,
        ...(init.body instanceof ReadableStream ? { duplex: 'half' } : {}),
      } as RequestInit);
    } catch (error) {
      if (init.signal?.aborted) throw error;
      const why = controller.signal.aborted ? `no answer within ${Math.round(timeoutMs / 1000)} s` : describeNetworkError(error);
      throw new ZeroConnectionError(this.url, `cannot reach Zero at ${this.url}: ${why}`, error);
    } finally {
      clearTimeout(timer);
    }
    if (!response.ok) throw await apiError(response);
    return response;
  }

  /** A JSON request whose answer is parsed with `schema`. */
  async request<S extends z.ZodType>(schema: S, method: string, path: string, init: RequestOptions = {}): Promise<z.output<S>> {
    const response = await this.send(method, path, init);
    const text = await response.text();
    const parsed = schema.safeParse(text ? safeJson(text) : undefined);
    if (!parsed.success) throw new ZeroProtocolError(`${method} ${path} answered ${response.status} with an unexpected body: ${text.slice(0, 200)}`);
    return parsed.data;
  }

  private async sendEmpty(method: string, path: string) {
    await (await this.send(method, path)).body?.cancel();
  }

  /** Whether the server answers `/health`. */
  async health(): Promise<boolean> {
    try {
      await (await this.send('GET', '/health')).body?.cancel();
      return true;
    } catch (error) {
      if (ZeroConnectionError.isInstance(error)) return false;
      throw error;
    }
  }

  /** Sends a message and waits for the whole run: text, tool calls, usage. */
  chat(body: ChatInput, signal?: AbortSignal) {
    return this.request(chatResultSchema, 'POST', '/chat', { json: { ...body, stream: false }, signal });
  }

  /** Sends a message and streams the run's events, reconnecting with `Last-Event-ID` when the connection drops. */
  chatStream(body: ChatInput, options: FollowOptions = {}): RunStream {
    return new RunStream(() => this.send('POST', '/chat', { json: { ...body, stream: true }, signal: options.signal }), this.openEvents, options);
  }

  /** Follows a run of a session from an event id until its next `done` (after an approval, or to re-attach). */
  followRun(sessionId: string, runId: string, after: string | undefined, options: FollowOptions = {}): RunStream {
    return new RunStream(undefined, this.openEvents, { ...options, sessionId, runId, after });
  }

  /** A session's live view from an event id (`after` omitted: from its first event); reconnects until `signal` aborts. */
  watch(sessionId: string, after: string | undefined, options: FollowOptions = {}): RunStream {
    return new RunStream(undefined, this.openEvents, { ...options, sessionId, after, wholeSession: true });
  }

  private openEvents = (sessionId: string, after: string | undefined, signal?: AbortSignal) =>
    this.send('GET', `/sessions/${encodeURIComponent(sessionId)}/events`, { headers: after ? { 'last-event-id': after } : {}, signal });

  listSessions(query: { limit?: number; cursor?: string } = {}) {
    const params = new URLSearchParams(Object.entries(query).filter(([, v]) => v !== undefined).map(([k, v]) => [k, String(v)]));
    return this.request(sessionListSchema, 'GET', `/sessions${params.size ? `?${params}` : ''}`);
  }
  getSession(id: string) {
    return this.request(sessionDetailSchema, 'GET', `/sessions/${encodeURIComponent(id)}`);
  }
  createSession(body: CreateSessionRequest = {}) {
    return this.request(sessionResponseSchema, 'POST', '/sessions', { json: body });
  }
  updateSession(id: string, body: UpdateSessionRequest) {
    return this.request(sessionResponseSchema, 'PATCH', `/sessions/${encodeURIComponent(id)}`, { json: body });
  }
  switchAgent(id: string, agentId: string) {
    return this.request(switchAgentResponseSchema, 'POST', `/sessions/${encodeURIComponent(id)}/agent`, { json: { agent_id: agentId } });
  }
  /** Stops the session's active run; `cancelled: false` when none runs. */
  async cancel(id: string) {
    try {
      return await this.request(cancelResponseSchema, 'POST', `/sessions/${encodeURIComponent(id)}/cancel`);
    } catch (error) {
      // 409 answers with the same body: nothing was running.
      if (ZeroApiError.isInstance(error) && error.status === 409) return { cancelled: false, reason: error.message };
      throw error;
    }
  }
  /** Forks a session at a history record (`seq`): a new session, the caller its owner (see docs/sessions-steering.md). */
  forkSession(id: string, atEvent: number, title?: string) {
    return this.request(sessionResponseSchema, 'POST', `/sessions/${encodeURIComponent(id)}/fork`, { json: { at_event: atEvent, ...(title ? { title } : {}) } });
  }
  /** Rewinds the files the session wrote to a history record (`seq`). */
  rewindFiles(id: string, atEvent: number) {
    return this.request(filesRewoundSchema, 'POST', `/sessions/${encodeURIComponent(id)}/rewind`, { json: { at_event: atEvent } });
  }
  deleteSession(id: string) {
    return this.sendEmpty('DELETE', `/sessions/${encodeURIComponent(id)}`);
  }
  /** Adds a member to a session (or changes their role). */
  share(id: string, userId: string, role: Role, name?: string) {
    return this.request(sessionMemberResponseSchema, 'PUT', `/sessions/${encodeURIComponent(id)}/members/${encodeURIComponent(userId)}`, { json: { role, ...(name ? { name } : {}) } });
  }

  getPermissions(id: string) {
    return this.request(sessionPermissionsSchema, 'GET', `/sessions/${encodeURIComponent(id)}/permissions`);
  }
  setPermissions(id: string, permissions: PermissionMap) {
    return this.request(sessionPermissionsSchema, 'PUT', `/sessions/${encodeURIComponent(id)}/permissions`, { json: { permissions } });
  }

  /**
   * Decides a call that waits for approval. `always` allows it and asks the
   * server to remember the decision for the session (`remember: "session"`);
   * a server without that field gets the tool allowed in the session's
   * permission overrides instead (owners), then the call allowed.
   */
  async decide(sessionId: string, toolCallId: string, choice: ApprovalChoice, options: { message?: string; tool?: string } = {}) {
    const path = `/sessions/${encodeURIComponent(sessionId)}/approvals/${encodeURIComponent(toolCallId)}`;
    const decision = choice === 'deny' ? 'deny' : 'allow';
    const body = { decision, ...(options.message ? { message: options.message } : {}) };
    if (choice !== 'always') return this.request(approvalResponseSchema, 'POST', path, { json: body });
    try {
      return await this.request(approvalResponseSchema, 'POST', path, { json: { ...body, remember: 'session' } });
    } catch (error) {
      const unknownField = ZeroApiError.isInstance(error) && error.status === 400 && (error.field === 'remember' || /remember/.test(error.message));
      if (!unknownField || !options.tool) throw error;
      const current = await this.getPermissions(sessionId);
      await this.setPermissions(sessionId, { ...current.permissions, [options.tool]: 'allow' });
      return this.request(approvalResponseSchema, 'POST', path, { json: body });
    }
  }

  listAgents() {
    return this.request(agentListSchema, 'GET', '/agents');
  }

  createKey(body: { user_id?: string; name?: string; label?: string } = {}) {
    return this.request(createdKeySchema, 'POST', '/keys', { json: body });
  }
  listKeys(userId?: string) {
    return this.request(keyListSchema, 'GET', `/keys${userId ? `?user_id=${encodeURIComponent(userId)}` : ''}`);
  }
  revokeKey(keyId: string, userId?: string) {
    return this.sendEmpty('DELETE', `/keys/${encodeURIComponent(keyId)}${userId ? `?user_id=${encodeURIComponent(userId)}` : ''}`);
  }

  /** Stores a new version of an eval dataset (from its cases, a file's text, or recorded sessions). */
  createDataset(body: CreateDatasetRequest) {
    return this.request(datasetResponseSchema, 'POST', '/evals/datasets', { json: body });
  }
  listDatasets() {
    return this.request(datasetListSchema, 'GET', '/evals/datasets');
  }
  getDataset(name: string, version?: number) {
    return this.request(datasetResponseSchema, 'GET', `/evals/datasets/${encodeURIComponent(name)}${version ? `?version=${version}` : ''}`);
  }
  /** Starts an eval run of a dataset against variants; follow it with `getEvalRun`. */
  createEvalRun(body: z.input<typeof createEvalRunRequestSchema>) {
    return this.request(evalRunResponseSchema, 'POST', '/evals/runs', { json: body });
  }
  listEvalRuns() {
    return this.request(evalRunListSchema, 'GET', '/evals/runs');
  }
  getEvalRun(id: string) {
    return this.request(evalRunResponseSchema, 'GET', `/evals/runs/${encodeURIComponent(id)}`);
  }
  cancelEvalRun(id: string) {
    return this.request(evalRunResponseSchema, 'POST', `/evals/runs/${encodeURIComponent(id)}/cancel`);
  }
  /** The run's report; `threshold` (0 to 1) is how much worse than the baseline a variant may be. */
  evalResults(id: string, threshold?: number) {
    return this.request(evalReportSchema, 'GET', `/evals/runs/${encodeURIComponent(id)}/results${threshold !== undefined ? `?threshold=${threshold}` : ''}`);
  }
  /** The run's report as Markdown. */
  async evalResultsMarkdown(id: string, threshold?: number): Promise<string> {
    return (await this.send('GET', `/evals/runs/${encodeURIComponent(id)}/results?format=markdown${threshold !== undefined ? `&threshold=${threshold}` : ''}`)).text();
  }
  listProjects() {
    return this.request(projectListSchema, 'GET', '/projects');
  }
  getProject(projectId: string) {
    return this.request(projectDetailSchema, 'GET', `/projects/${projectPath(projectId)}`);
  }
  /** The paths of a project's files (under a folder, when given). */
  listProjectFiles(projectId: string, under?: string) {
    return this.request(projectFilesSchema, 'GET', `/projects/${projectPath(projectId)}/files${under ? `?under=${encodeURIComponent(under)}` : ''}`);
  }
  /** Replaces a project's files with a `.tar.gz` (editors); `strip` drops leading path segments as `tar --strip-components`. */
  uploadArchive(projectId: string, archive: BodyInit, options: { strip?: number; signal?: AbortSignal } = {}) {
    const query = options.strip ? `?strip=${options.strip}` : '';
    return this.request(archiveUploadSchema, 'POST', `/projects/${projectPath(projectId)}/archive${query}`, {
      body: archive,
      headers: { 'content-type': 'application/gzip' },
      signal: options.signal,
    });
  }

  /** Starts an archive upload straight to S3 (editors), for an archive too large for a request body; `bytes` is checked against the limit first. */
  startUpload(projectId: string, body: UploadRequest = {}, signal?: AbortSignal): Promise<UploadTicket> {
    return this.request(uploadTicketSchema, 'POST', `/projects/${projectPath(projectId)}/uploads`, { json: body, signal });
  }

  /** Sends the archive where a started upload says: a form POST to S3, not to Zero. S3's refusal throws `ZeroApiError` with S3's code. */
  async sendUpload(ticket: UploadTicket, archive: Uint8Array | Blob, signal?: AbortSignal): Promise<void> {
    const form = new FormData();
    for (const [name, value] of Object.entries(ticket.fields)) form.append(name, value);
    // The file goes last: S3 ignores the fields after it.
    form.append('file', archive instanceof Blob ? archive : new Blob([archive as Uint8Array<ArrayBuffer>], { type: 'application/gzip' }), 'archive.tar.gz');
    let response: Response;
    try {
      response = await this.fetch(ticket.url, { method: ticket.method, body: form, signal });
    } catch (error) {
      if (signal?.aborted) throw error;
      throw new ZeroConnectionError(ticket.url, `cannot reach the upload's storage at ${new URL(ticket.url).origin}: ${describeNetworkError(error)}`, error);
    }
    const text = await response.text().catch(() => '');
    if (!response.ok) {
      const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1] ?? 'storage_error';
      const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1] ?? text.slice(0, 200);
      throw new ZeroApiError(response.status, code, `the storage refused the archive (${response.status} ${code}): ${message}`, 'archive');
    }
  }

  /** Applies an uploaded archive to the project's files, as `uploadArchive` does; the upload is then gone (a second completion is a 404). */
  completeUpload(projectId: string, uploadId: string, signal?: AbortSignal) {
    return this.request(archiveUploadSchema, 'POST', `/projects/${projectPath(projectId)}/uploads/${encodeURIComponent(uploadId)}/complete`, { signal, timeoutMs: APPLY_TIMEOUT_MS });
  }

  /** `uploadArchive` for any size up to the archive limit: start an upload, send the archive to S3, complete it. */
  async uploadArchiveDirect(projectId: string, archive: Uint8Array, options: { strip?: number; signal?: AbortSignal } = {}) {
    const ticket = await this.startUpload(projectId, { bytes: archive.byteLength, strip: options.strip }, options.signal);
    await this.sendUpload(ticket, archive, options.signal);
    return this.completeUpload(projectId, ticket.upload_id, options.signal);
  }
}

const projectPath = (projectId: string) => projectId.split('/').map(encodeURIComponent).join('/');

async function apiError(response: Response): Promise<ZeroApiError> {
  const text = await response.text().catch(() => '');
  const parsed = errorResponseSchema.safeParse(safeJson(text));
  if (parsed.success) {
    const { code, message, field, ...rest } = parsed.data.error;
    return new ZeroApiError(response.status, code, message, field, { code, message, ...(field ? { field } : {}), ...rest });
  }
  return new ZeroApiError(response.status, `http_${response.status}`, `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
}

/** The reason under fetch's "fetch failed": ECONNREFUSED, ENOTFOUND, … */
function describeNetworkError(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause;
  if (cause?.code === 'ECONNREFUSED') return 'connection refused (is the server running?)';
  if (cause?.code === 'ENOTFOUND') return 'host not found';
  return cause?.message ?? (error instanceof Error ? error.message : String(error));
}

const safeJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
