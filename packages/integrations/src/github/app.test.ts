import { createVerify, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { ZeroError } from '@zero/agent/errors';
import { appJwt, isAppRef, loadApp } from './app';
import { repoPath } from './client';

const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const pem = privateKey.export({ type: 'pkcs1', format: 'pem' }).toString();

describe('GitHub Apps', () => {
  it('reads an App from its two variables, its PEM newlines possibly written \\n', () => {
    const env: Record<string, string> = { ZERO_GITHUB_APP_ACME_ID: '12345', ZERO_GITHUB_APP_ACME_PRIVATE_KEY: pem.replace(/\n/g, '\\n') };
    const app = loadApp((name) => env[name], 'ZERO_GITHUB_APP_ACME', 'token_ref');
    expect(app.id).toBe('12345');
    expect(isAppRef('ZERO_GITHUB_APP_ACME')).toBe(true);
    expect(isAppRef('ZERO_GITHUB_TOKEN')).toBe(false);
  });

  it('refuses a missing id, a malformed id or a key that is not an RSA PEM with a 400 that never quotes the key', () => {
    const attempt = (env: Record<string, string>) => {
      try {
        loadApp((name) => env[name], 'ZERO_GITHUB_APP', 'token_ref');
        return undefined;
      } catch (error) {
        return error as ZeroError;
      }
    };
    expect(attempt({ ZERO_GITHUB_APP_PRIVATE_KEY: pem })?.message).toMatch(/ZERO_GITHUB_APP_ID is not set/);
    expect(attempt({ ZERO_GITHUB_APP_ID: '12; drop', ZERO_GITHUB_APP_PRIVATE_KEY: pem })?.message).toMatch(/numeric id/);
    const notPem = attempt({ ZERO_GITHUB_APP_ID: '1', ZERO_GITHUB_APP_PRIVATE_KEY: 'super-secret-not-a-key' });
    expect(notPem).toBeInstanceOf(ZeroError);
    expect(notPem?.status).toBe(400);
    expect(notPem?.message).not.toContain('super-secret');
  });

  it('signs a JWT GitHub accepts: RS256, issued a minute back, expiring within ten minutes', () => {
    const app = loadApp((name) => ({ ZERO_GITHUB_APP_ID: '777', ZERO_GITHUB_APP_PRIVATE_KEY: pem })[name], 'ZERO_GITHUB_APP', 'token_ref');
    const now = Date.UTC(2026, 0, 1);
    const [header, payload, signature] = appJwt(app, now).split('.');
    expect(JSON.parse(Buffer.from(header!, 'base64url').toString())).toEqual({ alg: 'RS256', typ: 'JWT' });
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString()) as { iat: number; exp: number; iss: string };
    expect(claims.iss).toBe('777');
    expect(claims.iat).toBe(now / 1000 - 60);
    expect(claims.exp - claims.iat).toBeLessThanOrEqual(600);
    expect(createVerify('RSA-SHA256').update(`${header}.${payload}`).verify(publicKey, Buffer.from(signature!, 'base64url'))).toBe(true);
  });

  it('encodes each part of a repository path', () => {
    expect(repoPath('acme/site')).toBe('/repos/acme/site');
    expect(repoPath('acme/../x')).toBe('/repos/acme/..');
    expect(repoPath('a b/c?d')).toBe('/repos/a%20b/c%3Fd');
  });
});
