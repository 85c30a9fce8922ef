import { Agent, request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV, startHarness, type Harness } from './support/harness';

interface Answer {
  status: number;
  connection: string | undefined;
  body: string;
  /** Whether the request went on a connection an earlier request had used. */
  reused: boolean;
}

/** One request through `agent`, answered in full. */
function call(agent: Agent, url: string, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method, agent, headers: body ? { ...headers, 'content-length': String(body.length) } : headers }, (res) => {
      const reused = req.reusedSocket;
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: text, reused }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('an answer sent before the request body is read leaves the connection usable', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('a refused 1.5 MB upload, then a request on the same keep-alive connection, is answered', async () => {
    const json = Buffer.from(JSON.stringify({ padding: 'x'.repeat(1.5 * 1024 * 1024) }));
    const refusals: [string, string, Record<string, string>, number][] = [
      // Not an archive: refused after reading only its first bytes.
      ['POST', '/api/v2/projects/fz/p/archive', { ...DEV, 'content-type': 'application/json' }, 400],
      // No key: refused before the body is looked at.
      ['POST', '/api/v2/projects/fz/p/archive', { 'content-type': 'application/gzip' }, 401],
      // No such route.
      ['POST', '/api/v2/no-such-route', { ...DEV, 'content-type': 'application/json' }, 404],
      // Over a body limit.
      ['PUT', '/api/v2/projects/fz/p/analysis/semgrep', { ...DEV, 'content-type': 'application/json' }, 413],
    ];
    for (const [method, path, headers, status] of refusals) {
      // One connection at a time, kept alive: the next request goes on the connection the refusal came on, unless it was closed.
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const refused = await call(agent, h.url, method, path, headers, status === 413 ? Buffer.concat([json, json, json, json, json]) : json);
        expect({ path, status: refused.status }).toEqual({ path, status });
        const next = await call(agent, h.url, 'GET', '/health', DEV);
        expect({ path, status: next.status }).toEqual({ path, status: 200 });
        // Either the rest of the body was read and the connection reused, or the refusal said it closes.
        expect({ path, connection: refused.connection }).toEqual({ path, connection: next.reused ? 'keep-alive' : 'close' });
      } finally {
        agent.destroy();
      }
    }
  });

  it('a body read to its end keeps the connection for the next request', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const stored = await call(agent, h.url, 'PUT', '/api/v2/projects/fz/kept/files/notes.txt', { ...DEV, 'content-type': 'text/plain' }, Buffer.from('x'.repeat(1024 * 1024)));
      expect(stored).toMatchObject({ status: 201, connection: 'keep-alive' });
      const next = await call(agent, h.url, 'GET', '/api/v2/projects/fz/kept/files', DEV);
      expect(next).toMatchObject({ status: 200, reused: true });
    } finally {
      agent.destroy();
    }
  });
});
