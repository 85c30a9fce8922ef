import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { signSha256 } from '@zero/integrations/webhooks/signature';
import { DEV, getJson, send, startHarness, type Harness } from './support/harness';
import { FakeGitHub } from './support/fake-github';

const SECRET = 'pr-review-webhook-secret';
const PUBLIC_URL = 'https://zero.example.test';
const DIFF_1 = 'diff --git a/src/dates.ts b/src/dates.ts\n-export const utc = false;\n+export const utc = true;\n';
const DIFF_2 = `${DIFF_1}diff --git a/src/app.ts b/src/app.ts\n+export const tz = "UTC";\n`;

let deliveries = 0;

/** A pull request investigated from its webhook alone: hydrated at its head, reviewed, answered on the pull request. */
describe('investigations that report on GitHub', () => {
  let h: Harness;
  let gh: FakeGitHub;
  const tokens: Record<string, string> = {};
  const idle = () => (h.server.runtime.queue as InProcessQueue).idle();

  /** A `pull_request` delivery signed as GitHub signs it. */
  async function deliver(hook: string, action: string, head: string) {
    const body = JSON.stringify({
      action,
      number: 42,
      pull_request: { number: 42, title: 'Parse dates in UTC', head: { sha: head, ref: 'feature' }, updated_at: new Date().toISOString() },
      repository: { full_name: 'acme/shop', default_branch: 'main' },
      sender: { login: 'octocat' },
    });
    const response = await fetch(`${h.url}/api/v2/webhooks/${hook}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': `d-${++deliveries}`, 'x-hub-signature-256': signSha256(SECRET, body) },
      body,
    });
    expect(response.status).toBe(202);
    const accepted = (await response.json()) as { session_id: string };
    await idle();
    return accepted.session_id;
  }
  let alice: Record<string, string>;
  /** The summary, as the hook's owner reads it. */
  const summaryOf = async (sessionId: string) => (await getJson(`${h.url}/api/v2/sessions/${sessionId}/summary`, alice)).json.summary;
  /** The text of every block the model was sent, in order. */
  const sent = () => JSON.stringify(h.fake.requests.map((r) => r.body.messages));

  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_GH = SECRET;
    gh = await new FakeGitHub().start();
    gh.addRepo('acme/shop');
    gh.commit('acme/shop', 'main', { 'src/dates.ts': 'export const utc = false;\n', 'src/old.ts': 'legacy\n' });
    tokens.ZERO_GITHUB_TOKEN_ACME = gh.issueToken();
    h = await startHarness({
      outbound: { allow: ['127.0.0.1'] },
      github: { apiUrl: gh.url, retryBaseMs: 5 },
      githubToken: (ref) => tokens[ref],
      publicUrl: PUBLIC_URL,
    });
    alice = await h.userHeaders('alice', 'Alice');
    const hook = {
      source: 'github',
      secret_ref: 'ZERO_WEBHOOK_SECRET_GH',
      events: ['pull_request.opened', 'pull_request.synchronize'],
      agent_id: 'investigator',
      project: '{{repository.full_name}}',
      prompt: 'Review pull request #{{pull_request.number}} at {{pull_request.head.sha}}; its diff is in .zero/pr.diff.',
      owner: { user_id: 'alice', name: 'Alice' },
      hydrate: true,
      github_token_ref: 'ZERO_GITHUB_TOKEN_ACME',
    };
    expect((await send(h, 'PUT', '/hooks/pr-review', DEV, { ...hook, report: { github: 'comment' } })).status).toBe(201);
    expect((await send(h, 'PUT', '/hooks/pr-check', DEV, { ...hook, report: { github: 'check_run' } })).status).toBe(201);
  });
  afterAll(async () => {
    await h.close();
    await gh.stop();
  });
  afterEach(() => {
    h.fake.reset();
    gh.reset();
  });

  it('hydrates the head, runs with the diff, comments on the PR, and edits the same comment for a new push', async () => {
    gh.addComment('acme/shop', 42, 'Thanks for the fix!');
    const head1 = gh.commit('acme/shop', 'feature', { 'src/dates.ts': 'export const utc = true;\n', 'src/app.ts': 'export const app = 1;\n' });
    gh.pull('acme/shop', 42, { head: head1, base: 'main', diff: DIFF_1 });
    h.fake.script({ toolCalls: [{ id: 'toolu_diff', name: 'read_file', input: { path: '.zero/pr.diff' } }], stopReason: 'tool_use' }, { text: '## Review\n\nDates are parsed in UTC now. **Approve.**' });

    const first = await deliver('pr-review', 'opened', head1);
    // The prompt names the head commit; the agent read the diff the hydrate stored.
    expect(sent()).toContain(`Review pull request #42 at ${head1}`);
    expect(sent()).toContain('+export const utc = true;');
    const files = (await getJson(`${h.url}/api/v2/projects/acme/shop/files`)).json.files.map((f: { path: string }) => f.path).sort();
    expect(files).toEqual(['.zero/pr.diff', 'src/app.ts', 'src/dates.ts']);
    expect((await getJson(`${h.url}/api/v2/projects/acme/shop`)).json.project.source).toMatchObject({ github: 'acme/shop', sha: head1 });

    let comments = gh.comments('acme/shop', 42);
    expect(comments).toHaveLength(2);
    const zero = comments[1]!;
    expect(zero.user.login).toBe(gh.botLogin);
    expect(zero.body.startsWith('<!-- zero:report hook=pr-review -->')).toBe(true);
    expect(zero.body).toContain('Dates are parsed in UTC now. **Approve.**');
    expect(zero.body).toContain(`${PUBLIC_URL}/#/s/${first}`);
    expect((await summaryOf(first)).github).toMatchObject({ repo: 'acme/shop', number: 42, sha: head1, hydrate: 'done', hydrated: { sha: head1, files: 3 }, report: { kind: 'comment', status: 'delivered', id: zero.id, updated: false } });

    // A new push: the tree moves to the new head, and Zero's comment is edited, once GitHub answers again.
    const head2 = gh.commit('acme/shop', 'feature', { 'src/dates.ts': 'export const utc = true;\n', 'src/app.ts': 'export const tz = "UTC";\n' });
    gh.pull('acme/shop', 42, { head: head2, base: 'main', diff: DIFF_2 });
    gh.failNext(/\/issues\/42\/comments$/, 502);
    h.fake.script({ text: 'Second look at the new push: still **Approve.**' });
    const second = await deliver('pr-review', 'synchronize', head2);
    comments = gh.comments('acme/shop', 42);
    expect(comments).toHaveLength(2);
    expect(comments[1]!.id).toBe(zero.id);
    expect(comments[1]!.body).toContain('Second look at the new push');
    expect(comments[1]!.body).toContain(`${PUBLIC_URL}/#/s/${second}`);
    expect(comments[0]!.body).toBe('Thanks for the fix!');
    const summary = await summaryOf(second);
    expect(summary.github.hydrated).toMatchObject({ sha: head2, uploaded: 2, removed: 0 });
    expect(summary.github.report).toMatchObject({ status: 'delivered', id: zero.id, updated: true });
    expect(summary.github.report.attempts).toBeGreaterThanOrEqual(3);
    // Only the API saw the token; the tarball's host did not.
    expect(gh.requests.filter((r) => r.host === 'download').every((r) => r.authorization === undefined)).toBe(true);
  });

  it('puts a check run on the head commit, its conclusion from the run', async () => {
    const head = gh.commit('acme/shop', 'feature', { 'src/dates.ts': 'export const utc = true;\n' });
    gh.pull('acme/shop', 42, { head, base: 'main', diff: DIFF_1 });
    h.fake.script({ text: 'Nothing to flag.' });
    const session = await deliver('pr-check', 'synchronize', head);
    const run = gh.checkRuns.at(-1)!;
    expect(run).toMatchObject({ name: 'Zero (pr-check)', head_sha: head, status: 'completed', conclusion: 'success', details_url: `${PUBLIC_URL}/#/s/${session}` });
    expect(run.output?.summary).toContain('Nothing to flag.');
    expect((await summaryOf(session)).github.report).toMatchObject({ kind: 'check_run', status: 'delivered', id: run.id });
  });

  it('records a report GitHub keeps refusing, after the retries, and a hydrate that failed', async () => {
    const head = gh.commit('acme/shop', 'feature', { 'a.txt': 'a\n' });
    gh.pull('acme/shop', 42, { head, base: 'main', diff: DIFF_1 });
    gh.failNext(/\/tarball\//, 503, 4);
    gh.failNext(/\/check-runs$/, 500, 4);
    h.fake.script({ text: 'Reviewed what was there.' });
    const session = await deliver('pr-check', 'synchronize', head);
    const summary = await summaryOf(session);
    expect(summary.status).toBe('completed');
    expect(summary.github.hydrate).toBe('failed');
    expect(summary.warnings.join('\n')).toMatch(/hydrate: acme\/shop at [0-9a-f]{40} was not hydrated: GitHub answered 503/);
    expect(summary.github.report).toMatchObject({ kind: 'check_run', status: 'failed', attempts: 4, last_status: 500 });
  });

  it('refuses hydrate and report on a generic hook, and a token reference that is not set', async () => {
    const base = { source: 'generic', secret_ref: 'ZERO_WEBHOOK_SECRET_GH', events: ['*'], agent_id: 'investigator', prompt: 'x', owner: { user_id: 'alice' } };
    expect((await send(h, 'PUT', '/hooks/g1', DEV, { ...base, hydrate: true })).json.error).toMatchObject({ field: 'hydrate' });
    expect((await send(h, 'PUT', '/hooks/g1', DEV, { ...base, report: { github: 'comment' } })).json.error).toMatchObject({ field: 'report' });
    expect((await send(h, 'PUT', '/hooks/g1', DEV, { ...base, report: { github: 'email' } })).status).toBe(400);
    const unset = await send(h, 'PUT', '/hooks/g2', DEV, { ...base, source: 'github', hydrate: true, github_token_ref: 'ZERO_GITHUB_TOKEN_UNSET' });
    expect(unset.json.error).toMatchObject({ field: 'github_token_ref' });
  });
});
