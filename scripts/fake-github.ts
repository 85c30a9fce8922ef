/**
 * The test suite's fake GitHub API, standing alone for the walk-through of docs/api/github.md:
 * `npx tsx scripts/fake-github.ts` serves repository acme/shop with pull request
 * #42 on http://127.0.0.1:8790 and prints a token and the head commit.
 */
import { FakeGitHub } from '../tests/support/fake-github';

const gh = await new FakeGitHub().start(Number(process.env.PORT ?? 8790));
gh.addRepo('acme/shop');
gh.commit('acme/shop', 'main', { 'README.md': '# Shop\n', 'src/dates.ts': 'export const parse = (s: string) => new Date(s);\n' });
const head = gh.commit('acme/shop', 'parse-utc', { 'README.md': '# Shop\n', 'src/dates.ts': "export const parse = (s: string) => new Date(`${s}Z`);\n" });
gh.pull('acme/shop', 42, {
  head,
  base: 'main',
  title: 'Parse dates in UTC',
  diff: 'diff --git a/src/dates.ts b/src/dates.ts\n-export const parse = (s: string) => new Date(s);\n+export const parse = (s: string) => new Date(`${s}Z`);\n',
});
const token = gh.issueToken(24 * 3600_000);
console.log(`fake GitHub API on ${gh.url} (acme/shop, pull request #42)`);
console.log(`export ZERO_GITHUB_TOKEN_SHOP=${token}`);
console.log(`export HEAD_SHA=${head}`);
