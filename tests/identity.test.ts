import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from 'hono/jwt';
import { runtimeConfigFromEnv } from '../functions/create-runtime';
import { DEV, DEV_KEY, getJson, postJson, startHarness, type Harness } from './support/harness';

const ISSUER = 'https://auth.example.test';
const now = () => Math.floor(Date.now() / 1000);

async function request(h: Harness, method: string, path: string, headers: Record<string, string>, body?: unknown) {
  const response = await fetch(`${h.url}/api/v2${path}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, json: text ? JSON.parse(text) : undefined };
}

const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

describe('JWT identities are apart from built-in and key-minted ones', () => {
  const secret = 'a-shared-secret-of-reasonable-length';
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ jwt: { secret, issuer: ISSUER, maxLifetimeS: 3600 } });
  });
  afterAll(() => h.close());

  const token = (claims: Record<string, unknown>) => sign({ iss: ISSUER, iat: now(), exp: now() + 300, ...claims }, secret, 'HS256');

  it('a token whose sub is "dev" or "admin" is not that administrator: it cannot create keys for others or see theirs', async () => {
    const devKeys = await postJson(`${h.url}/api/v2/keys`, { label: 'the real dev' }, DEV);
    expect(devKeys.status).toBe(201);
    for (const sub of ['dev', 'admin']) {
      const headers = bearer(await token({ sub }));
      const minted = await request(h, 'POST', '/keys', headers, { user_id: 'victim' });
      expect(minted.status).toBe(403);
      const listed = await request(h, 'GET', '/keys', headers);
      expect(listed.status).toBe(200);
      expect(listed.json.keys).toEqual([]);
      // Whoever it is, it is a user of its own: "jwt:<sub>".
      const created = await request(h, 'POST', '/sessions', headers, { title: 'mine' });
      const members = await request(h, 'GET', `/sessions/${created.json.session.session_id}/members`, headers);
      expect(members.json.members.map((m: { user_id: string }) => m.user_id)).toEqual([`jwt:${sub}`]);
    }
  });

  it.each([
    ['a sub with "#" and spaces', 'eve#MEMBER#x y'],
    ['an empty sub', ''],
    ['a sub of 300 characters', 'x'.repeat(300)],
    ['a numeric sub', 42],
  ])('refuses %s with 401', async (_label, sub) => {
    const response = await request(h, 'POST', '/sessions', bearer(await token({ sub })), { title: 'should not exist' });
    expect(response.status).toBe(401);
    expect(response.json.error.code).toBe('unauthorized');
  });

  it('refuses a token without exp with 401', async () => {
    const forever = await sign({ iss: ISSUER, sub: 'user-7' }, secret, 'HS256');
    const response = await request(h, 'GET', '/sessions', bearer(forever));
    expect(response.status).toBe(401);
    expect(response.json.error.message).toContain('exp');
  });

  it('refuses a token that lives longer than the maximum lifetime with 401, accepts one within it', async () => {
    const year = await token({ sub: 'user-7', exp: now() + 365 * 86400 });
    expect((await request(h, 'GET', '/sessions', bearer(year))).status).toBe(401);
    // Issued long ago with a long life, even if little of it is left.
    const old = await token({ sub: 'user-7', iat: now() - 86400, exp: now() + 60 });
    expect((await request(h, 'GET', '/sessions', bearer(old))).status).toBe(401);
    const hour = await token({ sub: 'user-7', exp: now() + 3000 });
    expect((await request(h, 'GET', '/sessions', bearer(hour))).status).toBe(200);
  });

  it('ZERO_JWT_MAX_LIFETIME_S sets the maximum lifetime (one day by default)', () => {
    const store = { table: 't', bucket: 'b' } as never;
    expect(runtimeConfigFromEnv({ ZERO_JWT_SECRET: 's', ZERO_JWT_MAX_LIFETIME_S: '600' }, store).auth?.jwt?.maxLifetimeS).toBe(600);
    expect(runtimeConfigFromEnv({ ZERO_JWT_SECRET: 's' }, store).auth?.jwt?.maxLifetimeS).toBeUndefined();
    expect(() => runtimeConfigFromEnv({ ZERO_JWT_SECRET: 's', ZERO_JWT_MAX_LIFETIME_S: 'a day' }, store)).toThrow(/ZERO_JWT_MAX_LIFETIME_S/);
  });
});

/** A JWKS endpoint on loopback that counts how often it is asked. */
async function jwksServer(answer: () => { status: number; body: unknown }) {
  let hits = 0;
  const server = createServer((_req, res) => {
    hits++;
    const { status, body } = answer();
    if (typeof body === 'string') res.writeHead(status, { 'content-type': 'text/html' }).end(body);
    else res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/.well-known/jwks.json`,
    hits: () => hits,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('JWT identities from a JWKS', () => {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const publicJwk = { ...publicKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256', use: 'sig' };
  const privateJwk = { ...privateKey.export({ format: 'jwk' }), kid: 'k1', alg: 'RS256' };
  const rs256 = (claims: Record<string, unknown>) => sign({ iss: ISSUER, iat: now(), exp: now() + 300, ...claims }, privateJwk as never);
  /** Well-formed tokens with a kid and a signature no key matches. */
  const junk = async (n: number) => `${(await rs256({ sub: `junk-${n}` })).split('.').slice(0, 2).join('.')}.${'A'.repeat(342)}`;

  it('a JWKS that fails is asked once for a burst of junk tokens, not once per token', async () => {
    const jwks = await jwksServer(() => ({ status: 503, body: '<html>Service Unavailable</html>' }));
    const h = await startHarness({ jwt: { jwksUrl: jwks.url, issuer: ISSUER } });
    try {
      for (let n = 0; n < 20; n++) expect((await request(h, 'GET', '/sessions', bearer(await junk(n)))).status).toBe(401);
      // A valid token is refused too while the JWKS is down (and asks nothing more within the window).
      expect((await request(h, 'GET', '/sessions', bearer(await rs256({ sub: 'user-9' })))).status).toBe(401);
      expect(jwks.hits()).toBe(1);
    } finally {
      await h.close();
      await jwks.close();
    }
  });

  it('tokens are verified against the JWKS, fetched once and cached; sub becomes jwt:<sub>', async () => {
    const jwks = await jwksServer(() => ({ status: 200, body: { keys: [publicJwk] } }));
    const h = await startHarness({ jwt: { jwksUrl: jwks.url, issuer: ISSUER } });
    try {
      const headers = bearer(await rs256({ sub: 'user-9', name: 'Ada' }));
      const created = await request(h, 'POST', '/sessions', headers, { title: 'jwks' });
      expect(created.status).toBe(201);
      const members = await request(h, 'GET', `/sessions/${created.json.session.session_id}/members`, headers);
      expect(members.json.members).toEqual([expect.objectContaining({ user_id: 'jwt:user-9', name: 'Ada', role: 'owner' })]);
      for (let n = 0; n < 10; n++) expect((await request(h, 'GET', '/sessions', bearer(await junk(n)))).status).toBe(401);
      expect(jwks.hits()).toBe(1);
    } finally {
      await h.close();
      await jwks.close();
    }
  });
});

describe('credentials in URLs, key listing, error wording', () => {
  let h: Harness;
  let alice: Record<string, string>;
  beforeAll(async () => {
    process.env.ZERO_WEBHOOK_SECRET_IDENTITY_TEST = 'a-webhook-secret-for-the-identity-test';
    h = await startHarness();
    alice = await h.userHeaders('alice', 'Alice');
  });
  afterAll(() => h.close());

  it('?access_token= is refused where a header can be sent: DELETE /hooks/…?access_token= → 401 and the hook stays', async () => {
    const hook = { source: 'github', secret_ref: 'ZERO_WEBHOOK_SECRET_IDENTITY_TEST', events: ['push'], agent_id: 'tester', prompt: 'x', owner: { user_id: 'dev' } };
    expect((await request(h, 'PUT', '/hooks/keep-me', DEV, hook)).status).toBe(201);
    const deleted = await request(h, 'DELETE', `/hooks/keep-me?access_token=${DEV_KEY}`, {});
    expect(deleted.status).toBe(401);
    expect(deleted.json.error.message).toContain('access_token');
    expect((await request(h, 'GET', '/hooks/keep-me', DEV)).status).toBe(200);
    expect((await request(h, 'GET', `/sessions?access_token=${DEV_KEY}`, {})).status).toBe(401);
    expect((await request(h, 'POST', `/keys?access_token=${DEV_KEY}`, {}, { user_id: 'victim' })).status).toBe(401);
  });

  it('?access_token= still works where a browser cannot send a header: the events stream and the UI stream resume', async () => {
    const created = await request(h, 'POST', '/sessions', alice, { title: 'watched' });
    const id = created.json.session.session_id as string;
    const token = alice.authorization!.slice('Bearer '.length);
    const controller = new AbortController();
    const events = await fetch(`${h.url}/api/v2/sessions/${id}/events?access_token=${token}`, { signal: controller.signal });
    expect(events.status).toBe(200);
    controller.abort();
    // No run is active: the resume answers 204, which it does only for a verified member.
    const resume = await fetch(`${h.url}/api/v2/ui/chat/${id}/stream?access_token=${token}`);
    expect(resume.status).toBe(204);
  });

  it("an administrator's GET /keys?user_id=alice lists alice's keys; anyone else gets 403", async () => {
    const own = await postJson(`${h.url}/api/v2/keys`, { label: 'alice laptop' }, alice);
    expect(own.status).toBe(201);
    const listed = await getJson(`${h.url}/api/v2/keys?user_id=alice`, DEV);
    expect(listed.status).toBe(200);
    expect(listed.json.keys.map((k: { key_id: string }) => k.key_id)).toContain(own.json.key_id);
    expect(listed.json.keys.every((k: { user_id: string }) => k.user_id === 'alice')).toBe(true);
    const bob = await h.userHeaders('bob', 'Bob');
    const refused = await getJson(`${h.url}/api/v2/keys?user_id=alice`, bob);
    expect(refused.status).toBe(403);
    expect((await getJson(`${h.url}/api/v2/keys?user_id=alice`, alice)).status).toBe(200);
    expect(await getJson(`${h.url}/api/v2/keys?user_id=${encodeURIComponent('a b#c')}`, DEV)).toMatchObject({ status: 400, json: { error: { field: 'user_id' } } });
  });

  it('an unknown body field is named in the 400', async () => {
    const session = await request(h, 'POST', '/sessions', alice, { title: 'x', surprise: true });
    expect(session).toMatchObject({ status: 400, json: { error: { code: 'invalid_request', field: 'surprise' } } });
    expect(session.json.error.message).toContain('surprise');
    const nested = await request(h, 'PUT', '/sessions/whatever/members/bob', alice, { role: 'viewer', extra: 1 });
    expect(nested).toMatchObject({ status: 400, json: { error: { field: 'extra' } } });
  });

  it('a role too weak for the action is worded in good English ("an editor")', async () => {
    const created = await request(h, 'POST', '/sessions', alice, { title: 'roles' });
    const id = created.json.session.session_id as string;
    const bob = await h.userHeaders('bob', 'Bob');
    await request(h, 'PUT', `/sessions/${id}/members/bob`, alice, { role: 'editor' });
    const refused = await request(h, 'DELETE', `/sessions/${id}`, bob);
    expect(refused.status).toBe(403);
    expect(refused.json.error.message).toBe('this needs the owner role; you are an editor of this session');
  });
});
