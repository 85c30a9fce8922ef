import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InProcessQueue } from '@zero/runtime/sessions/queue';
import { signSha256 } from '@zero/integrations/webhooks/signature';
import { DEV, TEST_API_KEY, getJson, send, startHarness, type Harness } from './support/harness';
import { FakeGitHub } from './support/fake-github';
import type { FakeRequest } from './support/fake-anthropic';

const SECRET = 'investigation-webhook-secret';
/** A canary in the server's own environment: nothing in a sandbox may print it. */
const CANARY = 'canary-server-secret-7f3a9c';

/** A small project whose `npm test` is `node --test`, with no dependencies: one test passes, one fails. */
const FIXTURE = {
  'package.json': JSON.stringify({ name: 'shop', version: '1.0.0', private: true, scripts: { test: 'node --test' } }, null, 2) + '\n',
  'src/cart.js': 'exports.total = (items) => items.reduce((sum, item) => sum + item.price, 0);\nexports.withTax = (amount) => amount * 1.2;\n',
  'test/cart.test.js': [
    "const test = require('node:test');",
    "const assert = require('node:assert');",
    "const { total, withTax } = require('../src/cart.js');",
    "test('sums the prices of the cart', () => assert.strictEqual(total([{ price: 2 }, { price: 3 }]), 5));",
    "test('adds twenty percent of tax to the total', () => assert.strictEqual(withTax(10), 12));",
    '',
  ].join('\n'),
};

/** The text of the last tool result the model was sent, if any. */
function lastToolResult(request: FakeRequest): string | undefined {
  const blocks = request.body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as { type?: string; content?: unknown }[]) : []));
  const result = blocks.findLast((b) => b.type === 'tool_result');
  return result && JSON.stringify(result.content);
}

/**
 * A pull request investigated from its webhook alone: the repository is hydrated at the head, the
 * agent runs the project's `npm test` through bash in the `local` sandbox (bubblewrap), and what it
 * found (the failing test, by name) is posted on the pull request.
 */
describe('a webhook investigation that runs the project tests in the sandbox', () => {
  let h: Harness;
  let gh: FakeGitHub;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_INVESTIGATE = SECRET;
    process.env.ZERO_CANARY_FOR_SANDBOX = CANARY;
    gh = await new FakeGitHub().start();
    gh.addRepo('acme/cart');
    gh.commit('acme/cart', 'main', FIXTURE);
    tokens.ZERO_GITHUB_TOKEN_CART = gh.issueToken();
    h = await startHarness({
      outbound: { allow: ['127.0.0.1'] },
      github: { apiUrl: gh.url, retryBaseMs: 5 },
      githubToken: (ref) => tokens[ref],
      publicUrl: 'https://zero.example.test',
      // An unattended run has nobody to ask: the deployment lets bash run (in its sandbox).
      permissions: { side_effects: 'allow', rules: { bash: 'allow' } },
    });
    const hook = {
      source: 'github',
      secret_ref: 'ZERO_WEBHOOK_SECRET_INVESTIGATE',
      events: ['pull_request.opened'],
      agent_id: 'commander',
      project: '{{repository.full_name}}',
      prompt: 'Run the tests of pull request #{{pull_request.number}} at {{pull_request.head.sha}} and report the failures.',
      owner: { user_id: 'alice', name: 'Alice' },
      hydrate: true,
      github_token_ref: 'ZERO_GITHUB_TOKEN_CART',
      report: { github: 'comment' },
    };
    expect((await send(h, 'PUT', '/hooks/investigate', DEV, hook)).status).toBe(201);
  });
  afterAll(async () => {
    delete process.env.ZERO_CANARY_FOR_SANDBOX;
    await h?.close();
    await gh?.stop();
  });

  it('hydrates the head, runs `npm test` in the sandbox, and comments with the failing test by name; the sandbox saw no server secret', async () => {
    const head = gh.commit('acme/cart', 'fix-tax', { ...FIXTURE, 'src/cart.js': FIXTURE['src/cart.js'].replace('1.2', '1.25') + '// tax\n' });
    gh.pull('acme/cart', 7, { head, base: 'main', diff: 'diff --git a/src/cart.js b/src/cart.js\n' });
    // The model runs the tests, then reports the failing tests its tool result named (not a scripted answer).
    h.fake.respondWith((request, index) => {
      if (index === 0) return { toolCalls: [{ id: 'toolu_npm_test', name: 'bash', input: { command: 'npm test 2>&1; echo "exit=$?"; echo ---; ls -A; echo ---; env' } }], stopReason: 'tool_use' };
      const output = JSON.parse(lastToolResult(request) ?? '""') as string;
      const failing = [...output.matchAll(/^not ok \d+ - (.+)$/gm)].map((m) => m[1]!.trim());
      return { text: `## Test run\n\n${failing.length} failing test(s):\n\n${failing.map((name) => `- ${name}`).join('\n')}` };
    });

    const body = JSON.stringify({
      action: 'opened',
      number: 7,
      pull_request: { number: 7, title: 'Tax at 25%', head: { sha: head, ref: 'fix-tax' }, updated_at: new Date().toISOString() },
      repository: { full_name: 'acme/cart', default_branch: 'main' },
      sender: { login: 'octocat' },
    });
    const response = await fetch(`${h.url}/api/v2/webhooks/investigate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': 'd-investigate-1', 'x-hub-signature-256': signSha256(SECRET, body) },
      body,
    });
    expect(response.status).toBe(202);
    const { session_id: sessionId } = (await response.json()) as { session_id: string };
    await (h.server.runtime.queue as InProcessQueue).idle();

    // The command ran in the sandbox over the hydrated head: node's test runner found one failure, npm exited 1.
    const output = JSON.parse(lastToolResult(h.fake.requests[1]!)!) as string;
    expect(output).toMatch(/^not ok \d+ - adds twenty percent of tax to the total$/m);
    expect(output).toMatch(/^ok \d+ - sums the prices of the cart$/m);
    expect(output).toContain('exit=1');
    // npm kept its cache and logs out of the working copy (HOME is the copy): it holds the project's files only.
    expect(output).toContain('---\n.zero\npackage.json\nsrc\ntest\n---');
    // Nothing of the server's environment reached it: not the canary, the model key, the GitHub token or the webhook secret.
    for (const secret of [CANARY, TEST_API_KEY, tokens.ZERO_GITHUB_TOKEN_CART!, SECRET]) expect(output).not.toContain(secret);
    expect(output).not.toMatch(/^(AWS_|ZERO_|ANTHROPIC_)/m);

    // GitHub received the report on the pull request, naming the failing test and only it.
    const comments = gh.comments('acme/cart', 7);
    expect(comments).toHaveLength(1);
    expect(comments[0]!.user.login).toBe(gh.botLogin);
    expect(comments[0]!.body).toContain('1 failing test(s)');
    expect(comments[0]!.body).toContain('- adds twenty percent of tax to the total');
    expect(comments[0]!.body).not.toContain('sums the prices of the cart');
    const summary = (await getJson(`${h.url}/api/v2/sessions/${sessionId}/summary`, await h.userHeaders('alice', 'Alice'))).json.summary;
    expect(summary.github).toMatchObject({ repo: 'acme/cart', number: 7, sha: head, hydrate: 'done', report: { kind: 'comment', status: 'delivered', id: comments[0]!.id } });
    // What npm wrote in its HOME stayed in the run's copy: the project holds the repository's files only.
    const files = (await getJson(`${h.url}/api/v2/projects/acme/cart/files`)).json.files.map((f: { path: string }) => f.path).sort();
    expect(files).toEqual(['.zero/pr.diff', 'package.json', 'src/cart.js', 'test/cart.test.js']);
  });
});
