import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createWebFetchTool } from '@zero/runtime/tools/web-fetch';
import { runtimeConfigFromEnv } from '../functions/create-runtime';
import type { ResolvedAddress } from '@zero/agent/net/outbound';
import { getJson, startHarness, type Harness } from './support/harness';
import { chatStream, type ReceivedEvent } from './support/sse';

const PUBLIC_IP = '93.184.216.34';
const resultsOf = (events: ReceivedEvent[]) => events.flatMap((e) => (e.type === 'tool_result' ? [{ content: e.content, is_error: e.is_error }] : []));

describe("web_fetch's cache and per-host rate limit, in the store", () => {
  let h: Harness;
  let site: Server;
  let port = 0;
  /** Requests the site received, by path. */
  const hits = new Map<string, number>();
  const resolver = async (hostname: string): Promise<ResolvedAddress[]> => (hostname.endsWith('.test') ? [{ address: PUBLIC_IP, family: 4 }] : []);
  const at = (host: string, path: string) => `http://${host}:${port}${path}`;
  const fetches = (...urls: string[]) => urls.map((url, i) => ({ toolCalls: [{ id: `toolu_web_${Math.random().toString(36).slice(2)}_${i}`, name: 'web_fetch', input: { url } }] }));

  beforeAll(async () => {
    site = createServer((req, res) => {
      const n = (hits.get(req.url!) ?? 0) + 1;
      hits.set(req.url!, n);
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`${req.url} visit ${n}`);
    });
    await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
    port = (site.address() as AddressInfo).port;
    h = await startHarness({
      extraTools: [createWebFetchTool({ resolver, dialAddress: (a) => (a === PUBLIC_IP ? '127.0.0.1' : a) })],
      // Two fetches per host per minute (ZERO_WEB_FETCH_PER_HOST_PER_MINUTE=2); results cached for the default 300 s.
      rateLimits: { perHost: 2, windowMs: 60_000 },
    });
  });
  afterAll(async () => {
    await h.close();
    site.closeAllConnections();
    await new Promise((r) => site.close(r));
  });
  afterEach(() => h.fake.reset());

  it('answers the same fetch from the cache, in another session too, and refuses a host past its limit with an error result', async () => {
    h.fake.script(...fetches(at('docs.test', '/page'), at('docs.test', '/page'), at('docs.test', '/other'), at('docs.test', '/third'), at('other.test', '/fourth')), { text: 'Read.' });
    const { events } = await chatStream(h.url, { agent_id: 'investigator', message: 'read the docs' });
    const results = resultsOf(events);
    expect(results[0]!.content).toContain('/page visit 1');
    // The second fetch of /page came from the cache: the site saw it once.
    expect(results[1]!.content).toBe(results[0]!.content);
    expect(results[2]!.content).toContain('/other visit 1');
    // docs.test's two fetches of the minute are spent; a cached result did not count, another host has its own.
    expect(results[3]).toEqual({ is_error: true, content: expect.stringMatching(/^web_fetch was not run: host docs\.test may be fetched 2 times per 60 s; try again in \d+ s\.$/) });
    expect(results[4]!.content).toContain('/fourth visit 1');
    expect(Object.fromEntries(hits)).toEqual({ '/page': 1, '/other': 1, '/fourth': 1 });

    // The cache is the deployment's, in the store: another session's fetch of /page is answered from it.
    h.fake.reset();
    h.fake.script(...fetches(at('docs.test', '/page')), { text: 'Again.' });
    const again = await chatStream(h.url, { agent_id: 'investigator', message: 'read it again' });
    expect(resultsOf(again.events)[0]!.content).toBe(results[0]!.content);
    expect(hits.get('/page')).toBe(1);
  });

  it('reads ZERO_WEB_CACHE_TTL_S, ZERO_WEB_FETCH_PER_HOST_PER_MINUTE and ZERO_RATE_LIMIT_GLOBAL_PER_MINUTE, refusing malformed values at start', () => {
    const store = h.stack.store;
    const config = runtimeConfigFromEnv({ ZERO_WEB_CACHE_TTL_S: '0', ZERO_WEB_FETCH_PER_HOST_PER_MINUTE: '30', ZERO_RATE_LIMIT_GLOBAL_PER_MINUTE: '600' }, store);
    expect(config.webCacheTtlS).toBe(0);
    expect(config.rateLimits).toMatchObject({ perHost: 30, global: 600 });
    expect(() => runtimeConfigFromEnv({ ZERO_WEB_CACHE_TTL_S: 'soon' }, store)).toThrow('ZERO_WEB_CACHE_TTL_S must be a whole number of seconds (0: off), got "soon"');
    expect(() => runtimeConfigFromEnv({ ZERO_RATE_LIMIT_GLOBAL_PER_MINUTE: '-1' }, store)).toThrow('ZERO_RATE_LIMIT_GLOBAL_PER_MINUTE must be a positive whole number');
  });
});

describe('the global API rate limit', () => {
  let h: Harness;
  beforeAll(async () => {
    // All callers together: 2 requests a minute (ZERO_RATE_LIMIT_GLOBAL_PER_MINUTE=2); no per-credential limit.
    h = await startHarness({ rateLimits: { global: 2, windowMs: 60_000 } });
  });
  afterAll(() => h.close());

  it('refuses any caller once the deployment’s requests of the window are spent, with a 429 that says so', async () => {
    // The developer's two requests (a key for someone, the agents) spend the window; then someone else is refused.
    const user = await h.userHeaders('someone');
    expect((await getJson(`${h.url}/api/v2/agents`)).status).toBe(200);
    const refused = await getJson(`${h.url}/api/v2/agents`, user);
    expect(refused.status).toBe(429);
    expect(refused.json).toMatchObject({ error: { code: 'rate_limited', message: expect.stringContaining('this deployment may make 2 requests per 60 s') } });
  });
});
