import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV, getJson, send, startHarness, type Harness } from './support/harness';
import { FakeGitHub } from './support/fake-github';

/** Hydrating a project from GitHub: the tree at a commit, through the outbound guard, only what changed. */
describe('hydrate a project from GitHub', () => {
  let h: Harness;
  let gh: FakeGitHub;
  const tokens: Record<string, string> = {};
  const tree = { 'README.md': '# Shop\n', 'src/app.ts': 'export const app = 1;\n', 'src/dates.ts': 'export const utc = true;\n' };

  const files = async (id: string) =>
    ((await getJson(`${h.url}/api/v2/projects/${id}/files`)).json.files as { path: string }[]).map((f) => f.path).sort();
  const read = async (id: string, path: string) => (await fetch(`${h.url}/api/v2/projects/${id}/files/${path}`, { headers: DEV })).text();
  const hydrate = (id: string, body: unknown, headers: Record<string, string> = DEV) => send(h, 'POST', `/projects/${id}/hydrate`, headers, body);

  beforeAll(async () => {
    gh = await new FakeGitHub().start();
    gh.addRepo('acme/shop');
    gh.commit('acme/shop', 'main', tree);
    tokens.ZERO_GITHUB_TOKEN_ACME = gh.issueToken();
    tokens.ZERO_GITHUB_TOKEN_OLD = gh.issueToken(-1);
    h = await startHarness({
      // GitHub is on loopback here: reached only because the operator's allow-list names it.
      outbound: { allow: ['127.0.0.1'] },
      github: { apiUrl: gh.url, retryBaseMs: 5 },
      githubToken: (ref) => tokens[ref],
    });
  });
  afterAll(async () => {
    await h.close();
    await gh.stop();
  });

  it('stores the tree at the ref, records the commit, and never sends the token to the download host', async () => {
    gh.reset();
    const sha = gh.commit('acme/shop', 'main', tree);
    const { status, json } = await hydrate('acme/shop', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ sha, files: 3, uploaded: 3, unchanged: 0, removed: 0, skipped_count: 0 });
    expect(json.project.source).toMatchObject({ github: 'acme/shop', ref: 'main', sha });
    expect(await files('acme/shop')).toEqual(['README.md', 'src/app.ts', 'src/dates.ts']);
    expect(await read('acme/shop', 'src/dates.ts')).toBe(tree['src/dates.ts']);
    // The tarball came by GitHub's redirect; the credential stayed with the API.
    const api = gh.requests.filter((r) => r.host === 'api');
    const download = gh.requests.filter((r) => r.host === 'download');
    expect(api.map((r) => r.path)).toEqual([`/repos/acme/shop/commits/main`, `/repos/acme/shop/tarball/${sha}`]);
    expect(api.every((r) => r.authorization === `Bearer ${tokens.ZERO_GITHUB_TOKEN_ACME}`)).toBe(true);
    expect(download).toHaveLength(1);
    expect(download[0]!.authorization).toBeUndefined();
  });

  it('writes only changed files and removes those gone from the tree', async () => {
    await hydrate('acme/shop', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' });
    const { 'src/app.ts': _gone, ...kept } = tree;
    const sha = gh.commit('acme/shop', 'feature', { ...kept, 'src/dates.ts': 'export const utc = false;\n' });
    const { status, json } = await hydrate('acme/shop', { ref: 'feature', token_ref: 'ZERO_GITHUB_TOKEN_ACME' });
    expect(status).toBe(200);
    expect(json).toMatchObject({ sha, files: 2, uploaded: 1, unchanged: 1, removed: 1 });
    expect(await files('acme/shop')).toEqual(['README.md', 'src/dates.ts']);
    expect(await read('acme/shop', 'src/dates.ts')).toBe('export const utc = false;\n');
    // The same commit again writes nothing.
    expect((await hydrate('acme/shop', { ref: sha, token_ref: 'ZERO_GITHUB_TOKEN_ACME' })).json).toMatchObject({ uploaded: 0, unchanged: 2, removed: 0 });
  });

  it('refuses a tree over the archive limits, naming the limit, and changes nothing', async () => {
    const before = await hydrate('acme/shop', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' });
    const huge = Object.fromEntries(Array.from({ length: 10_001 }, (_, i) => [`f/${i}.txt`, '']));
    gh.commit('acme/shop', 'huge', huge);
    const { status, json } = await hydrate('acme/shop', { ref: 'huge', token_ref: 'ZERO_GITHUB_TOKEN_ACME' });
    expect(status).toBe(413);
    expect(json.error.message).toContain('more than 10000 files');
    expect(await files('acme/shop')).toEqual(['README.md', 'src/app.ts', 'src/dates.ts']);
    const project = (await getJson(`${h.url}/api/v2/projects/acme/shop`)).json.project;
    expect(project.rev).toBe(before.json.project.rev);
    expect(project.source.sha).toBe(before.json.sha);
  });

  it('names the token reference, never the token, when GitHub refuses an expired token', async () => {
    const { status, json, text } = await hydrate('acme/shop', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_OLD' });
    expect(status).toBe(400);
    expect(json.error).toMatchObject({ field: 'token_ref' });
    expect(json.error.message).toContain('ZERO_GITHUB_TOKEN_OLD');
    expect(json.error.message).toContain('Bad credentials');
    expect(text).not.toContain(tokens.ZERO_GITHUB_TOKEN_OLD);
  });

  it("with the deployment's credentials, a project is hydrated first by an administrator; a user cannot claim a private repository by hydrating it, its editors may hydrate it again", async () => {
    gh.addRepo('acme/vault', { private: true });
    gh.commit('acme/vault', 'main', { 'SECRET.md': 'the combination\n' });
    const alice = await h.userHeaders('alice');
    gh.reset();
    const refused = await hydrate('acme/vault', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' }, alice);
    expect(refused.status).toBe(404);
    expect(gh.requests).toHaveLength(0);
    // Alice did not become its owner on the way: an administrator hydrates it, then makes her an editor.
    expect((await hydrate('acme/vault', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' })).status).toBe(200);
    expect((await getJson(`${h.url}/api/v2/projects/acme/vault/files`, alice)).status).toBe(404);
    expect((await send(h, 'PUT', '/projects/acme/vault/members/alice', DEV, { role: 'editor' })).status).toBe(201);
    expect((await hydrate('acme/vault', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' }, alice)).status).toBe(200);
  });

  it('answers a clear 4xx for an unset token reference, an unknown ref, a bad body, and a stranger', async () => {
    const unset = await hydrate('acme/shop', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_NOPE' });
    expect(unset.status).toBe(400);
    expect(unset.json.error).toMatchObject({ field: 'token_ref' });
    // A private repository without a token answers 404, as GitHub's does.
    expect((await hydrate('acme/shop', { ref: 'main' })).status).toBe(404);
    const unknown = await hydrate('acme/shop', { ref: 'no-such-branch', token_ref: 'ZERO_GITHUB_TOKEN_ACME' });
    expect(unknown.status).toBe(404);
    expect(unknown.json.error).toMatchObject({ field: 'ref' });
    expect((await hydrate('acme/shop', { ref: '../../etc' })).json.error).toMatchObject({ field: 'ref' });
    expect((await hydrate('acme/shop', { ref: 'main', token_ref: 'AWS_SECRET_ACCESS_KEY' })).json.error).toMatchObject({ field: 'token_ref' });
    // Someone who cannot see the project learns nothing of it, and GitHub is not asked.
    const carol = await h.userHeaders('carol');
    gh.reset();
    expect((await hydrate('acme/shop', { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' }, carol)).status).toBe(404);
    expect(gh.requests).toHaveLength(0);
  });

  it('refuses GitHub on loopback without the allow-list', async () => {
    const other = await startHarness({ github: { apiUrl: gh.url, attempts: 1 }, githubToken: (ref) => tokens[ref] });
    try {
      const { status, json } = await send(other, 'POST', '/projects/acme/shop/hydrate', DEV, { ref: 'main', token_ref: 'ZERO_GITHUB_TOKEN_ACME' });
      expect(status).toBe(502);
      expect(json.error.message).toContain('loopback');
    } finally {
      await other.close();
    }
  });
});
