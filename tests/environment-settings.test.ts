import { createServer, type Server } from 'node:http';
import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ToolRegistry } from '@zero/agent/tools/registry';
import { createBashTool } from '@zero/runtime/tools/bash';
import type { Runtime } from '../functions/create-runtime';
import type { ToolContext } from '@zero/runtime/tools/tool';
import { DEV, getJson, postJson, send, startHarness, type Harness } from './support/harness';
import { FakeGitHub } from './support/fake-github';
import { toolContext } from './support/tool-context';
import { modelCalls } from './support/tool-calls';

const PROJECT = 'acme/tools';

/**
 * A session's environment takes effect on its commands: the environment's limits, network
 * allowlist and packages (installed once per environment), and the session's repositories in the
 * working copy. Commands run through bash in the local (bubblewrap) sandbox.
 */
describe("an environment's settings apply to the sandbox of every command of its sessions", () => {
  let h: Harness;
  let gh: FakeGitHub;
  let listener: Server;
  let port: number;
  let scratch: string;
  let registry: ToolRegistry;

  beforeAll(async () => {
    scratch = await mkdtemp(join(tmpdir(), 'zero-env-settings-'));
    // The sandbox's host user (nobody, when the tests run as root) passes through to the copies and prefixes below.
    await chmod(scratch, 0o711);
    listener = createServer((_req, res) => res.end('hello from loopback\n'));
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    port = (listener.address() as { port: number }).port;
    gh = await new FakeGitHub().start();
    // Loopback is opened by the deployment (ZERO_OUTBOUND_ALLOW), for GitHub's fake and the listener: an environment still has to allowlist it.
    const outbound = { allow: ['127.0.0.1'] };
    const bash = createBashTool({ scratchRoot: join(scratch, 'copies'), packagesRoot: join(scratch, 'environments'), mode: 'full', sandboxOptions: { outbound } });
    registry = new ToolRegistry([bash], { permissions: { side_effects: 'allow' } });
    h = await startHarness({ extraTools: [bash], outbound, github: { apiUrl: gh.url, retryBaseMs: 5 } });
    await h.server.runtime.projects.putFiles(PROJECT, [{ path: 'readme.md', body: Buffer.from('tools\n') }]);
  });
  afterAll(async () => {
    await h.close();
    await gh.stop();
    listener.close();
    await rm(scratch, { recursive: true, force: true });
  });

  const environment = async (body: Record<string, unknown>): Promise<string> => {
    const { status, json } = await postJson(`${h.url}/api/v2/environments`, { name: 'env', ...body });
    expect({ status, json }).toMatchObject({ status: 201 });
    return json.environment.id;
  };
  const sessionIn = async (environmentId: string, extra: Record<string, unknown> = {}): Promise<string> => {
    const { status, json } = await postJson(`${h.url}/v1/sessions`, { agent: 'commander', environment_id: environmentId, ...extra });
    expect({ status, json }).toMatchObject({ status: 200 });
    return json.id;
  };
  /** A bash call in the session, as the run loop makes it (the runtime's services: its environments and GitHub). */
  const contextOf = (rt: Runtime, sessionId: string): ToolContext => ({ ...toolContext(rt, { sessionId, projectId: PROJECT, tools: ['bash'] }), environments: rt.environments, mountRepositories: rt.mountRepositories });
  const bash = async (sessionId: string, command: string, projectId: string | undefined = PROJECT) => {
    const context = { ...contextOf(h.server.runtime, sessionId), projectId };
    return registry.execute('bash', { command }, context, { timeoutMs: 600_000, maxOutputChars: 200_000 });
  };

  it('a command past the environment’s time limit is killed and reported; editing the limit applies to the next command', async () => {
    const id = await environment({ limits: { timeout_seconds: 1 } });
    const session = await sessionIn(id);
    const slow = await bash(session, 'sleep 3; echo finished');
    expect(slow.is_error).toBe(true);
    expect(slow.content).toMatch(/^timed out after 1000 ms; its sandbox and every process in it were killed/);
    expect(slow.content).not.toContain('finished');
    const patched = await send(h, 'PATCH', `/environments/${id}`, DEV, { limits: { timeout_seconds: 30 } });
    expect(patched.status).toBe(200);
    const again = await bash(session, 'sleep 3; echo finished');
    expect(again.is_error).toBe(false);
    expect(again.content).toMatch(/^exit code 0 .*\n--- stdout ---\nfinished\n/);
  });

  it('the environment’s memory and process limits bind its commands, and the default environment’s do not', async () => {
    const allocate = `python3 -c "b = bytearray(300 * 1024 * 1024); print('allocated')"`;
    const small = await sessionIn(await environment({ limits: { memory_mb: 128 } }));
    const refused = await bash(small, allocate);
    expect(refused.content).toContain('MemoryError');
    expect(refused.content).not.toContain('allocated');
    const roomy = await sessionIn('env_zero_lambda');
    expect((await bash(roomy, allocate)).content).toContain('--- stdout ---\nallocated');

    const fork = `python3 -c "
import os, time
n = 0
try:
    for i in range(40):
        if os.fork() == 0:
            time.sleep(2); os._exit(0)
        n += 1
    print('forked', n)
except OSError as e:
    print('refused after', n, 'errno', e.errno)
"`;
    const few = await sessionIn(await environment({ limits: { processes: 8 } }));
    const forks = await bash(few, fork);
    expect(forks.content).toMatch(/refused after \d errno 11/);
  });

  it('a loopback listener is reachable only from an environment that allowlists it; others are refused', async () => {
    const curl = `curl -sS -m 10 http://127.0.0.1:${port}/ 2>&1; echo "curl exit $?"`;
    const open = await sessionIn(await environment({ network: { type: 'limited', allowed_hosts: ['127.0.0.1'] } }));
    expect((await bash(open, curl)).content).toContain('hello from loopback');
    const other = await sessionIn(await environment({ network: { type: 'limited', allowed_hosts: ['example.com'] } }));
    const refused = await bash(other, curl);
    expect(refused.content).not.toContain('hello from loopback');
    expect(refused.content).toContain(`refused: 127.0.0.1:${port} is not on this environment's network allowlist (example.com)`);
    const closed = await sessionIn('env_zero_lambda');
    const none = await bash(closed, curl);
    expect(none.content).not.toContain('hello from loopback');
    expect(none.content).toMatch(/curl exit [1-9]/);
  });

  it('an npm package is installed once for the environment and used by commands of two sessions', async () => {
    const id = await environment({ packages: { npm: ['semver@7.6.0'] }, network: { type: 'limited', allowed_hosts: [], allow_package_managers: true } });
    const [a, b] = [await sessionIn(id), await sessionIn(id)];
    // Both at once: one installs, the other waits for that install.
    const results = await Promise.all([bash(a, 'semver 1.2.3 -r ">=1.0.0"'), bash(b, 'semver 2.0.0 -r ">=1.0.0"')]);
    for (const result of results) expect(result.is_error).toBe(false);
    expect(results[0]!.content).toContain('--- stdout ---\n1.2.3');
    expect(results[1]!.content).toContain('--- stdout ---\n2.0.0');
    expect(results.filter((r) => r.content.includes("[installed the environment's packages once")).length).toBe(1);
    // Later commands use it as it is; the prefix is read-only inside the sandbox.
    const later = await bash(a, 'semver --help | head -1; touch /opt/zero-env/npm/x 2>&1 || echo read-only');
    expect(later.content).not.toContain('[installed');
    expect(later.content).toMatch(/SemVer 7\.6\.0[\s\S]*read-only/);
    expect((await getJson(`${h.url}/api/v2/environments/${id}`)).json.environment.packages_status).toMatchObject({ state: 'ready', error: null });
  }, 180_000);

  it('a package that cannot be installed is a clear error naming the package manager, and nothing runs', async () => {
    const id = await environment({ packages: { pip: ['surely-not-a-package-zz'] }, network: { type: 'limited', allowed_hosts: [], allow_package_managers: true } });
    const result = await bash(await sessionIn(id), 'echo ran');
    expect(result.is_error).toBe(true);
    // Where PyPI is unreachable (as on the machine this was written on) the error says so; elsewhere pip finds no such package.
    expect(result.content).toMatch(new RegExp(`\\(${id}\\) could not install its packages: pip (could not reach its package index \\(https://pypi\\.org/simple/|failed: No matching distribution found for surely-not-a-package-zz)`));
    expect(result.content).toContain('Nothing ran');
    expect(result.content).not.toContain('--- stdout ---');
    // The environment says so too; a change of its packages makes that stale.
    const shown = (await getJson(`${h.url}/api/v2/environments/${id}`)).json.environment;
    expect(shown.packages_status).toMatchObject({ state: 'failed' });
    expect(shown.packages_status.error).toMatch(/^pip /);
    await send(h, 'PATCH', `/environments/${id}`, DEV, { packages: { pip: ['another-package-zz'] } });
    expect((await getJson(`${h.url}/api/v2/environments/${id}`)).json.environment.packages_status).toMatchObject({ state: 'pending' });

    // A spec that would copy the host's files into the prefix is refused before any package manager runs.
    for (const [manager, spec] of [['npm', 'semver@file:/etc'], ['pip', 'file:/etc']] as const) {
      const hostile = await environment({ packages: { [manager]: [spec] }, network: { type: 'limited', allowed_hosts: [], allow_package_managers: true } });
      const refused = await bash(await sessionIn(hostile), 'echo ran');
      expect(refused.content).toContain(`could not install its packages: ${manager}: "${spec}" is not a`);
    }
  }, 120_000);

  it('a session’s GitHub repository at a commit appears in the working copy', async () => {
    gh.addRepo('acme/widgets', { private: false });
    const sha = gh.commit('acme/widgets', 'main', { 'README.md': '# Widgets at the pinned commit\n', 'src/w.ts': 'export const w = 1;\n' });
    gh.commit('acme/widgets', 'main', { 'README.md': '# Widgets, later\n' });
    const session = await sessionIn('env_zero_lambda', { resources: [{ type: 'github_repository', url: 'https://github.com/acme/widgets', checkout: { type: 'commit', sha } }] });
    const shown = await (await fetch(`${h.url}/v1/sessions/${session}`, { headers: DEV })).json();
    expect(shown.resources).toMatchObject([{ type: 'github_repository', url: 'https://github.com/acme/widgets', mount_path: '/workspace/widgets', checkout: { type: 'commit', sha } }]);
    // No project: the repository is the working copy's content.
    const result = await bash(session, 'cat widgets/README.md; ls widgets/src', undefined);
    expect(result.content).toMatch(/^exit code 0 .*\n--- stdout ---\n# Widgets at the pinned commit\nw\.ts\n/);
    // With the session's project, both are there.
    const both = await bash(session, 'cat readme.md widgets/src/w.ts');
    expect(both.content).toContain('tools\nexport const w = 1;');

    for (const [resource, field] of [
      [{ type: 'github_repository', url: 'https://github.com/acme/widgets', authorization_token: 'ghp_x' }, 'resources.0.authorization_token'],
      [{ type: 'github_repository', url: 'https://gitlab.com/acme/widgets' }, 'resources.0.url'],
      [{ type: 'github_repository', url: 'https://github.com/acme/widgets', mount_path: '/etc/x' }, 'resources.0.mount_path'],
    ] as const) {
      const refused = await postJson(`${h.url}/v1/sessions`, { agent: 'commander', environment_id: 'env_zero_lambda', resources: [resource] });
      expect({ field, status: refused.status }).toEqual({ field, status: 400 });
      expect(JSON.stringify(refused.json)).toContain(field);
    }
  });

  it('through the model loop: a run’s bash gets its session’s environment and repositories', async () => {
    gh.addRepo('acme/gadgets', { private: false });
    const sha = gh.commit('acme/gadgets', 'main', { 'NOTES.md': 'gadget notes\n' });
    const id = await environment({ limits: { timeout_seconds: 1 } });
    const session = await sessionIn(id, { resources: [{ type: 'github_repository', url: 'https://github.com/acme/gadgets', checkout: { type: 'commit', sha } }] });
    const read = await modelCalls(h, 'bash', { command: 'cat gadgets/NOTES.md' }, { session_id: session });
    expect(read.result?.content).toMatch(/^exit code 0 .*\n--- stdout ---\ngadget notes\n/);
    const slow = await modelCalls(h, 'bash', { command: 'sleep 3; echo finished' }, { session_id: session });
    expect(slow.result?.is_error).toBe(true);
    expect(slow.result?.content).toMatch(/^timed out after 1000 ms/);
  });
});
