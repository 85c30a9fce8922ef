import { execFile } from 'node:child_process';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUNDLE_DIR, bundleApi, initialOutputs } from '../bench/bundle-function';
import { storeEnv, startHarness, type Harness } from './support/harness';

const ADMIN_KEY = 'zadm_deployed_bundle_test_key_0001';

/**
 * Invokes the bundle's handler as Lambda's Node.js runtime does for a streamed function URL: the
 * `awslambda` global, an event per request, a writable response stream whose metadata (status,
 * headers) comes first. Prints each answer as one line, after a marker.
 */
const INVOKER = `
import { Writable } from 'node:stream';
globalThis.awslambda = {
  streamifyResponse: (handler) => handler,
  HttpResponseStream: { from: (stream, meta) => Object.assign(stream, { meta }) },
};
const { handler } = await import(process.env.BUNDLE_URL);
const requests = JSON.parse(process.env.REQUESTS);
for (const { method, path, body } of requests) {
  const chunks = [];
  const stream = new Writable({ write(chunk, _encoding, done) { chunks.push(Buffer.from(chunk)); done(); } });
  const host = 'abc.lambda-url.us-east-1.on.aws';
  const event = {
    version: '2.0', rawPath: path, rawQueryString: '', isBase64Encoded: false,
    headers: { host, authorization: 'Bearer ${ADMIN_KEY}', 'content-type': 'application/json' },
    requestContext: { domainName: host, http: { method, path, sourceIp: '127.0.0.1' } },
    ...(body ? { body: JSON.stringify(body) } : {}),
  };
  await handler(event, stream, { getRemainingTimeInMillis: () => 900_000 });
  console.log('~answer ' + JSON.stringify({ status: stream.meta?.statusCode, body: Buffer.concat(chunks).toString('utf8') }));
}
`;

/** The API function as Zero deploys it: SST's esbuild build, then its init chunks merged into one file. */
describe('the API bundle as deployed', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it("loads three files at cold start, grep's worker not the init, and answers the doors whose routes load on first use: agents, a chat, the Managed Agents API", async () => {
    const out = join(BUNDLE_DIR, 'api-deployed');
    const bundle = await bundleApi(out);
    // What a cold start reads: the entry, the file its static imports were merged into, and the small
    // chunk it shares with grep's worker thread, which loads its own chunk by URL and must not evaluate the init.
    const staticImports = async (file: string) => [...(await readFile(file, 'utf8')).matchAll(/(?:from|import)\s*['"](\.\/[^'"]+)['"]/g)].map((m) => m[1]!.replace(/^\.\/(chunks\/)?/, ''));
    expect((await staticImports(bundle.file)).map((file) => file.replace(/-[\w-]+\.mjs$/, '')).sort()).toEqual(['init', 'shared']);
    expect(initialOutputs(bundle).length, 'esbuild split what loads at init into many chunks before the merge').toBeGreaterThan(10);
    const chunks = await readdir(join(out, 'chunks'));
    expect(chunks.length).toBeGreaterThan(10);
    const grepScan = chunks.find((name) => name.startsWith('grep-scan-'));
    expect(grepScan).toBeDefined();
    expect(await staticImports(join(out, 'chunks', grepScan!))).toEqual([expect.stringMatching(/^shared-/)]);

    h.fake.script({ text: 'Hello from the deployed bundle.' });
    const invoker = join(out, 'invoke.mjs');
    await writeFile(invoker, INVOKER);
    const requests = [
      { method: 'GET', path: '/api/v2/agents' },
      { method: 'POST', path: '/api/v2/chat', body: { message: 'Say hello' } },
      { method: 'GET', path: '/v1/agents' },
    ];
    const { stdout } = await promisify(execFile)(process.execPath, [invoker], {
      cwd: out,
      timeout: 60_000,
      maxBuffer: 10 * 1024 * 1024,
      env: {
        PATH: process.env.PATH,
        ...storeEnv(h),
        ANTHROPIC_BASE_URL: h.fake.url,
        ANTHROPIC_API_KEY: 'sk-ant-deployed-bundle-0123456789',
        ZERO_ADMIN_KEY: ADMIN_KEY,
        ZERO_SESSION_TITLES: 'off',
        BUNDLE_URL: pathToFileURL(bundle.file).href,
        REQUESTS: JSON.stringify(requests),
      },
    });
    const answers = stdout
      .trim()
      .split('\n')
      // The function's own log lines go to stdout too, as JSON.
      .filter((line) => line.startsWith('~answer '))
      .map((line) => JSON.parse(line.slice('~answer '.length)) as { status: number; body: string });
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200]);
    expect(JSON.parse(answers[0]!.body).agents.map((a: { id: string }) => a.id)).toContain('tester');
    expect(answers[1]!.body).toContain('Hello from the deployed bundle.');
    expect(JSON.parse(answers[2]!.body)).toHaveProperty('data');
  }, 180_000);
});
