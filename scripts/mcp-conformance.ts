/**
 * Zero's MCP server against clients no one here wrote: the MCP conformance
 * suite (`@modelcontextprotocol/conformance server`, its active suite, with the
 * scenarios Zero is known to fail in mcp-conformance-expected-failures.yml)
 * and the MCP Inspector's CLI (`@modelcontextprotocol/inspector --cli`), which
 * lists Zero's tools and calls two of them. Starts Zero on loopback as the
 * test harness does (dynalite, s3rver, the fake model); nothing is downloaded.
 *
 *   npm run mcp:conformance                                   # the active suite, then the Inspector
 *   npm run mcp:conformance -- --scenario ping --verbose      # arguments after -- go to the conformance CLI
 */
import { spawn } from 'node:child_process';
import { createServer, request as httpRequest } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEV, DEV_KEY, send, startHarness, type Harness } from '../tests/support/harness';

process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const root = join(import.meta.dirname, '..');
const EXPECTED_FAILURES = join(root, 'scripts', 'mcp-conformance-expected-failures.yml');

/** Runs an installed package's command (`npx --no-install`: never a download); resolves with its output. */
function run(args: string[], options: { echo?: boolean } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('npx', ['--no-install', ...args], { cwd: root, env: { ...process.env, npm_config_update_notifier: 'false' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => {
      stdout += d;
      if (options.echo) process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      stderr += d;
      if (options.echo) process.stderr.write(d);
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? 1, stdout, stderr }));
  });
}

/**
 * Neither the conformance suite's client nor the Inspector CLI that runs on
 * Node 20 (0.15; 1.x and later need Node 22) can send a header, and Zero's
 * /mcp needs a credential: this loopback proxy adds the bearer header and
 * passes everything else through, streaming both ways.
 */
async function withCredential(target: string, authorization: string) {
  const to = new URL(target);
  const proxy = createServer((req, res) => {
    const upstream = httpRequest(
      { host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host, authorization } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`, close: () => new Promise<void>((resolve) => proxy.close(() => resolve())) };
}

async function seed(h: Harness) {
  const put = (path: string, body: string) => send(h, 'PUT', `/projects/conformance/app/files/${path}`, { ...DEV, 'content-type': 'application/octet-stream' }, body);
  if ((await put('README.md', '# Conformance\nA project for the MCP conformance run.\n')).status !== 201) throw new Error('could not seed the project');
  await put('src/index.ts', 'export const answer = 42;\n');
}

async function conformance(url: string, outputDir: string): Promise<boolean> {
  console.log(`\n== MCP conformance suite (active) against ${url} ==`);
  const { code } = await run(['@modelcontextprotocol/conformance', 'server', '--url', url, '--expected-failures', EXPECTED_FAILURES, '-o', outputDir, ...process.argv.slice(2)], { echo: true });
  return code === 0;
}

async function inspector(h: Harness, url: string): Promise<boolean> {
  console.log(`\n== MCP Inspector CLI against ${url} ==`);
  const cli = (...args: string[]) =>
    run(['@modelcontextprotocol/inspector', '--cli', url, ...args]).then((r) => {
      if (r.code !== 0) throw new Error(`inspector ${args.join(' ')} exited ${r.code}: ${r.stderr.trim()}`);
      return JSON.parse(r.stdout) as Record<string, any>;
    });
  const failures: string[] = [];
  const check = (ok: boolean, what: string) => {
    console.log(`${ok ? '  ✓' : '  ✗'} ${what}`);
    if (!ok) failures.push(what);
  };
  try {
    const listed = await cli('--method', 'tools/list');
    const names = (listed.tools as { name: string }[]).map((t) => t.name);
    check(['list_projects', 'read_file', 'search_files', 'find_files', 'get_analysis', 'ask_zero'].every((n) => names.includes(n)), `tools/list: ${names.join(', ')}`);

    const read = await cli('--method', 'tools/call', '--tool-name', 'read_file', '--tool-arg', 'project_id=conformance/app', '--tool-arg', 'path=README.md');
    check(!read.isError && read.content?.[0]?.text?.includes('A project for the MCP conformance run.'), 'tools/call read_file returns the file');

    h.fake.script({ text: 'Hello from the fake model.' });
    const asked = await cli('--method', 'tools/call', '--tool-name', 'ask_zero', '--tool-arg', 'message=Say hello');
    check(!asked.isError && asked.structuredContent?.answer === 'Hello from the fake model.' && typeof asked.structuredContent?.session_id === 'string', 'tools/call ask_zero answers with the text and a session id');

    const resources = await cli('--method', 'resources/list');
    check((resources.resources as { uri: string }[]).some((r) => r.uri === 'zero://projects/conformance/app/files/README.md'), 'resources/list lists the project files');
  } catch (error) {
    check(false, error instanceof Error ? error.message : String(error));
  }
  return failures.length === 0;
}

async function main() {
  const dataDir = await mkdtemp(join(tmpdir(), 'zero-mcp-conformance-'));
  const outputDir = await mkdtemp(join(tmpdir(), 'zero-mcp-conformance-results-'));
  const h = await startHarness({ dataDir });
  const proxy = await withCredential(h.url, `Bearer ${DEV_KEY}`);
  let ok = false;
  try {
    await seed(h);
    const suite = await conformance(`${proxy.url}/mcp`, outputDir);
    const cli = await inspector(h, `${proxy.url}/mcp`);
    ok = suite && cli;
    console.log(`\nconformance: ${suite ? 'passed (expected failures as listed)' : 'FAILED'}; inspector: ${cli ? 'passed' : 'FAILED'}`);
  } finally {
    await proxy.close();
    await h.close();
    await rm(dataDir, { recursive: true, force: true });
    await rm(outputDir, { recursive: true, force: true });
  }
  process.exit(ok ? 0 : 1);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
