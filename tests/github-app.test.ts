import { generateKeyPairSync } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { signSha256 } from '@zero/integrations/webhooks/signature';
import { DEV, getJson, send, startHarness, type Harness } from './support/harness';
import { FakeGitHub } from './support/fake-github';

const SECRET = 'pr-app-webhook-secret';
const APP_ID = '424242';
const DIFF = 'diff --git a/src/dates.ts b/src/dates.ts\n-export const utc = false;\n+export const utc = true;\n';
const MINUTE = 60_000;

let deliveries = 0;

/**
 * A GitHub App configured by reference: Zero signs the App's JWT, finds the
 * repository's installation, mints its token and keeps it until it nears its
 * expiry — no token variable, no cron job.
 */
describe('GitHub App installation tokens minted by Zero', () => {
  let h: Harness;
  let gh: FakeGitHub;
  let alice: Record<string, string>;
  // Zero's clock and the fake's, moved together: an hour passes in a test.
  let skew = 0;
  const clock = () => Date.now() + skew;
  /** How far Zero's clock is off GitHub's. */
  let drift = 0;
  const { publicKey, privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const pkcs1 = privateKey.export({ type: 'pkcs1', format: 'pem' }) as string;
  const pkcs8 = privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ type: 'pkcs8', format: 'pem' }) as string;
  // Only App references: no ZERO_GITHUB_TOKEN at all. The default App's key as an env var often carries it, on one line.
  const vars: Record<string, string> = {
    ZERO_GITHUB_APP_ID: APP_ID,
    ZERO_GITHUB_APP_PRIVATE_KEY: pkcs1.trim().replace(/\n/g, '\\n'),
    ZERO_GITHUB_APP_PKCS8_ID: APP_ID,
    ZERO_GITHUB_APP_PKCS8_PRIVATE_KEY: pkcs8,
    ZERO_GITHUB_APP_WRONG_ID: APP_ID,
    ZERO_GITHUB_APP_WRONG_PRIVATE_KEY: otherKey,
    ZERO_GITHUB_APP_BROKEN_ID: APP_ID,
    ZERO_GITHUB_APP_BROKEN_PRIVATE_KEY: '-----BEGIN RSA PRIVATE KEY-----\nbm90IGEga2V5\n-----END RSA PRIVATE KEY-----',
    ZERO_GITHUB_APP_NOKEY_ID: APP_ID,
  };
  /** Every log line, and every body the API answered: searched for secrets at the end. */
  const logs: string[] = [];
  const answers: string[] = [];
  const sessions: string[] = [];
  const jwts: string[] = [];
  const idle = () => (h.server.runtime.queue as InProcessQueue).idle();
  const summaryOf = async (sessionId: string) => (await getJson(`${h.url}/api/v2/sessions/${sessionId}/summary`, alice)).json.summary;
  const api = async (method: string, path: string, body?: unknown) => {
    const answer = await send(h, method, path, DEV, body);
    answers.push(answer.text);
    return answer;
  };
  /** Requests to the repository's endpoints (not the App's own), with the credential they carried. */
  const repoRequests = () => gh.requests.filter((r) => r.host === 'api' && r.path.startsWith('/repos/') && !r.path.endsWith('/installation'));

  /** Requests with the App's JWT: finding the installation, minting its token. */
  const appRequests = () => gh.requests.filter((r) => r.path.endsWith('/installation') || r.path.endsWith('/access_tokens'));

  async function deliver(hook: string, head: string) {
    const body = JSON.stringify({
      action: 'synchronize',
      number: 7,
      pull_request: { number: 7, title: 'Parse dates in UTC', head: { sha: head, ref: 'feature' } },
      repository: { full_name: 'acme/shop', default_branch: 'main' },
      sender: { login: 'octocat' },
    });
    const response = await fetch(`${h.url}/api/v2/webhooks/${hook}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': `app-${++deliveries}`, 'x-hub-signature-256': signSha256(SECRET, body) },
      body,
    });
    expect(response.status).toBe(202);
    const { session_id } = (await response.json()) as { session_id: string };
    sessions.push(session_id);
    await idle();
    return session_id;
  }

  /** A new head on pull request 7, and the model's answer for its review. */
  function push(files: Record<string, string>, review: string): string {
    const head = gh.commit('acme/shop', 'feature', files);
    gh.pull('acme/shop', 7, { head, base: 'main', diff: DIFF });
    h.fake.script({ text: review });
    return head;
  }

  beforeAll(async () => {
    for (const level of ['log', 'info', 'warn', 'error'] as const) {
      vi.spyOn(console, level).mockImplementation((...args: unknown[]) => void logs.push(args.map(String).join(' ')));
    }
    process.env.ZERO_WEBHOOK_SECRET_APP = SECRET;
    gh = await new FakeGitHub().start();
    gh.now = clock;
    gh.addRepo('acme/shop');
    gh.addRepo('acme/other');
    gh.commit('acme/shop', 'main', { 'src/dates.ts': 'export const utc = false;\n' });
    gh.commit('acme/other', 'main', { 'x.txt': 'x\n' });
    // Installed on two repositories: a token Zero mints for one reads only that one.
    gh.installApp(APP_ID, publicKey, ['acme/shop', 'acme/payroll']);
    h = await startHarness({
      outbound: { allow: ['127.0.0.1'] },
      github: { apiUrl: gh.url, retryBaseMs: 5, now: () => clock() + drift },
      githubToken: (ref) => vars[ref],
    });
    alice = await h.userHeaders('alice', 'Alice');
    const hook = {
      source: 'github',
      secret_ref: 'ZERO_WEBHOOK_SECRET_APP',
      events: ['pull_request'],
      agent_id: 'investigator',
      project: '{{repository.full_name}}',
      prompt: 'Review pull request #{{pull_request.number}} at {{pull_request.head.sha}}.',
      owner: { user_id: 'alice', name: 'Alice' },
      hydrate: true,
      report: { github: 'comment' },
    };
    // No github_token_ref: the deployment's App.
    expect((await api('PUT', '/hooks/app-review', hook)).status).toBe(201);
    expect((await api('PUT', '/hooks/app-wrong', { ...hook, github_token_ref: 'ZERO_GITHUB_APP_WRONG' })).status).toBe(201);
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await h.close();
    await gh.stop();
  });
  afterEach(() => {
    jwts.push(...appRequests().map((r) => r.authorization!.slice('Bearer '.length)));
    h.fake.reset();
    gh.reset();
  });

  it('hydrates the head and comments on the PR with a token it minted, then reuses that token for the next delivery', async () => {
    const head1 = push({ 'src/dates.ts': 'export const utc = true;\n' }, 'Looks right: **Approve.**');
    const first = await deliver('app-review', head1);
    expect(gh.minted).toHaveLength(1);
    expect(gh.mintedFor[0]).toEqual(['acme/shop']);
    const token = gh.minted[0]!.token;
    expect(await summaryOf(first)).toMatchObject({ github: { hydrate: 'done', hydrated: { sha: head1 }, report: { kind: 'comment', status: 'delivered', updated: false } } });
    const files = (await getJson(`${h.url}/api/v2/projects/acme/shop/files`)).json.files.map((f: { path: string }) => f.path).sort();
    expect(files).toEqual(['.zero/pr.diff', 'src/dates.ts']);
    expect(gh.comments('acme/shop', 7).at(-1)!.body).toContain('Looks right: **Approve.**');
    // The JWT went to the App's endpoints only; every request on the repository carried the minted token.
    expect(gh.requests.filter((r) => r.path === '/repos/acme/shop/installation')).toHaveLength(1);
    expect(repoRequests().length).toBeGreaterThanOrEqual(5);
    expect(repoRequests().every((r) => r.authorization === `Bearer ${token}`)).toBe(true);

    jwts.push(...appRequests().map((r) => r.authorization!.slice('Bearer '.length)));
    gh.reset();
    const head2 = push({ 'src/dates.ts': 'export const utc = true;\n', 'src/tz.ts': 'export const tz = "UTC";\n' }, 'Second push: still **Approve.**');
    const second = await deliver('app-review', head2);
    expect(await summaryOf(second)).toMatchObject({ github: { hydrated: { sha: head2, uploaded: 1 }, report: { status: 'delivered', updated: true } } });
    // Nothing minted, nothing looked up: the cached token served the whole delivery.
    expect(gh.minted).toHaveLength(1);
    expect(appRequests()).toHaveLength(0);
    expect(repoRequests().every((r) => r.authorization === `Bearer ${token}`)).toBe(true);
  });

  it('mints a new token once the cached one nears its expiry, and again when GitHub refuses a cached one', async () => {
    const before = gh.minted.length;
    // 56 minutes on: the hour-long token has four minutes left, under the five Zero keeps in hand.
    skew += 56 * MINUTE;
    const head = push({ 'src/dates.ts': 'export const utc = "always";\n' }, 'Reviewed after an hour.');
    const session = await deliver('app-review', head);
    expect((await summaryOf(session)).github).toMatchObject({ hydrate: 'done', report: { status: 'delivered' } });
    expect(gh.minted).toHaveLength(before + 1);
    const renewed = gh.minted.at(-1)!.token;
    expect(repoRequests().every((r) => r.authorization === `Bearer ${renewed}`)).toBe(true);

    // GitHub stops taking the cached token early: one 401, one fresh token, the same request again.
    jwts.push(...appRequests().map((r) => r.authorization!.slice('Bearer '.length)));
    gh.reset();
    gh.expireTokens();
    const hydrated = await api('POST', '/projects/acme/shop/hydrate', { ref: 'main' });
    expect(hydrated.status).toBe(200);
    expect(gh.minted).toHaveLength(before + 2);
    const commits = gh.requests.filter((r) => r.path === '/repos/acme/shop/commits/main');
    expect(commits.map((r) => r.authorization)).toEqual([`Bearer ${renewed}`, `Bearer ${gh.minted.at(-1)!.token}`]);
  });

  it('takes a PKCS#8 key by reference on hydrate, mints once for requests at the same moment, and names an App that is not installed on the repository', async () => {
    // Two hydrates at once with a reference not used before: one installation lookup, one token minted, shared.
    const minted = gh.minted.length;
    const both = await Promise.all([1, 2].map(() => api('POST', '/projects/acme/shop/hydrate', { ref: 'main', token_ref: 'ZERO_GITHUB_APP_PKCS8' })));
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(gh.minted).toHaveLength(minted + 1);
    expect(appRequests().map((r) => r.path)).toEqual(['/repos/acme/shop/installation', `/app/installations/${gh.minted.at(-1)!.installation}/access_tokens`]);
    const elsewhere = await api('POST', '/projects/acme/other/hydrate', { ref: 'main', token_ref: 'ZERO_GITHUB_APP_PKCS8' });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.json.error.message).toContain(`the GitHub App in ZERO_GITHUB_APP_PKCS8_ID (${APP_ID}) is not installed on acme/other`);
    // A JWT GitHub's clock finds expired, or issued in its future, is refused as GitHub refuses it, and said so.
    try {
      drift = -11 * MINUTE;
      const late = await api('POST', '/projects/acme/other/hydrate', { ref: 'main', token_ref: 'ZERO_GITHUB_APP_PKCS8' });
      expect(late.status).toBe(400);
      expect(late.json.error).toMatchObject({ field: 'token_ref' });
      expect(late.json.error.message).toContain("'Expiration time' claim ('exp') must be a numeric value representing the future time");
      drift = 3 * MINUTE;
      const early = await api('POST', '/projects/acme/other/hydrate', { ref: 'main', token_ref: 'ZERO_GITHUB_APP_PKCS8' });
      expect(early.json.error.message).toContain("'Issued at' claim ('iat')");
      // Within the minute Zero backdates its JWT by, a clock that runs ahead is still taken.
      drift = 50_000;
      expect((await api('POST', '/projects/acme/other/hydrate', { ref: 'main', token_ref: 'ZERO_GITHUB_APP_PKCS8' })).status).toBe(404);
    } finally {
      drift = 0;
    }
  });

  it('records a wrong key in the investigation summary, and refuses a key it cannot read at hook PUT and hydrate', async () => {
    const head = push({ 'src/dates.ts': 'export const utc = 1;\n' }, 'Reviewed what was there.');
    const minted = gh.minted.length;
    const session = await deliver('app-wrong', head);
    const summary = await summaryOf(session);
    expect(summary.status).toBe('completed');
    expect(summary.github.hydrate).toBe('failed');
    expect(summary.warnings.join('\n')).toContain('GitHub refused the JWT of the GitHub App in ZERO_GITHUB_APP_WRONG_ID');
    expect(summary.warnings.join('\n')).toContain('A JSON web token could not be decoded');
    expect(summary.github.report).toMatchObject({ status: 'failed' });
    expect(summary.github.report.last_error).toContain('ZERO_GITHUB_APP_WRONG_PRIVATE_KEY');
    expect(gh.minted).toHaveLength(minted);

    const base = { source: 'github', secret_ref: 'ZERO_WEBHOOK_SECRET_APP', events: ['*'], agent_id: 'investigator', prompt: 'x', owner: { user_id: 'alice' }, hydrate: true };
    const broken = await api('PUT', '/hooks/app-broken', { ...base, github_token_ref: 'ZERO_GITHUB_APP_BROKEN' });
    expect(broken.status).toBe(400);
    expect(broken.json.error).toMatchObject({ field: 'github_token_ref' });
    expect(broken.json.error.message).toContain('ZERO_GITHUB_APP_BROKEN_PRIVATE_KEY is not a PEM private key');
    const noKey = await api('PUT', '/hooks/app-broken', { ...base, github_token_ref: 'ZERO_GITHUB_APP_NOKEY' });
    expect(noKey.json.error.message).toContain('ZERO_GITHUB_APP_NOKEY_PRIVATE_KEY is not set');
    const unset = await api('PUT', '/hooks/app-broken', { ...base, github_token_ref: 'ZERO_GITHUB_APP_NONE' });
    expect(unset.json.error.message).toContain('ZERO_GITHUB_APP_NONE_ID is not set');
    // The App's variable rather than the App: told which name to use.
    const variable = await api('PUT', '/hooks/app-broken', { ...base, github_token_ref: 'ZERO_GITHUB_APP_ID' });
    expect(variable.status).toBe(400);
    expect(variable.text).toContain('names the App, not its variables');
    expect((await getJson(`${h.url}/api/v2/hooks/app-broken`)).status).toBe(404);

    jwts.push(...appRequests().map((r) => r.authorization!.slice('Bearer '.length)));
    gh.reset();
    const hydrate = await api('POST', '/projects/acme/shop/hydrate', { ref: 'main', token_ref: 'ZERO_GITHUB_APP_BROKEN' });
    expect(hydrate.status).toBe(400);
    expect(hydrate.json.error).toMatchObject({ field: 'token_ref' });
    expect(gh.requests).toHaveLength(0);
  });

  it('never lets the private key, a minted token or a JWT reach a log line, a summary, a session or an API answer', async () => {
    expect(gh.minted.length).toBeGreaterThanOrEqual(3);
    expect(jwts.length).toBeGreaterThanOrEqual(4);
    for (const id of sessions) {
      answers.push((await send(h, 'GET', `/sessions/${id}/summary`, alice)).text);
      answers.push((await send(h, 'GET', `/sessions/${id}`, alice)).text);
    }
    const seen = [logs.join('\n'), answers.join('\n'), JSON.stringify(h.fake.requests), gh.comments('acme/shop', 7).map((c) => c.body).join('\n')].join('\n');
    expect(logs.length).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(sessions.length);
    // A line of each key's body is enough to tell it leaked, in either form.
    for (const pem of [pkcs1, pkcs8, otherKey]) expect(seen).not.toContain(pem.split('\n')[2]);
    for (const { token } of gh.minted) expect(seen).not.toContain(token);
    for (const jwt of jwts) expect(seen).not.toContain(jwt);
  });
});
