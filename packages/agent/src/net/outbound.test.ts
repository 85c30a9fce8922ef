import { afterEach, describe, expect, it } from 'vitest';
import { allowListed, outboundAllowFromEnv } from './outbound-allow';
import { refusedAddress, refusedUrl } from './outbound';

describe('the outbound guard before anything is resolved', () => {
  afterEach(() => {
    delete process.env.AWS_LAMBDA_RUNTIME_API;
  });

  it('refuses private, loopback, link-local and metadata addresses, however they are written', () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '0.0.0.0', '::1', 'fe80::1', 'fc00::1', '::ffff:127.0.0.1', '::ffff:169.254.169.254', '64:ff9b::7f00:1']) {
      expect(refusedAddress(address), address).toBeDefined();
    }
    expect(refusedAddress('93.184.216.34')).toBeUndefined();
    expect(refusedAddress('2606:4700::1111')).toBeUndefined();
    expect(refusedAddress('not-an-ip')).toMatch(/not an IP address/);
  });

  it('refuses other schemes, credentials in the URL and local host names; allows public hosts', () => {
    expect(refusedUrl(new URL('file:///etc/passwd'))).toMatch(/only http and https/);
    expect(refusedUrl(new URL('gopher://example.com/'))).toMatch(/only http and https/);
    expect(refusedUrl(new URL('http://user:pw@example.com/'))).toMatch(/credentials/);
    expect(refusedUrl(new URL('http://localhost:8080/'))).toMatch(/local host name/);
    expect(refusedUrl(new URL('http://api.localhost/'))).toMatch(/local host name/);
    expect(refusedUrl(new URL('http://[::1]/'))).toBeDefined();
    expect(refusedUrl(new URL('http://2130706433/'))).toBeDefined(); // 127.0.0.1 as one number
    expect(refusedUrl(new URL('http://0x7f.1/'))).toBeDefined();
    expect(refusedUrl(new URL('https://example.com/a?b=c'))).toBeUndefined();
  });

  it('lets the operator allow a local host, but never the Lambda Runtime API', () => {
    const allow = outboundAllowFromEnv('127.0.0.1:9000, Internal.Example');
    expect(allow).toEqual(['127.0.0.1:9000', 'internal.example']);
    expect(refusedUrl(new URL('http://127.0.0.1:9000/x'), allow)).toBeUndefined();
    expect(refusedUrl(new URL('http://127.0.0.1:9001/x'), allow)).toBeDefined();
    process.env.AWS_LAMBDA_RUNTIME_API = '127.0.0.1:9000';
    expect(refusedUrl(new URL('http://127.0.0.1:9000/2018-06-01/runtime/invocation/next'), allow)).toMatch(/Lambda Runtime API/);
  });

  it('reads the allow-list strictly: a host with a path or a scheme stops the start', () => {
    expect(outboundAllowFromEnv(undefined)).toBeUndefined();
    expect(outboundAllowFromEnv(' , ')).toBeUndefined();
    expect(outboundAllowFromEnv('[::1]:8080')).toEqual(['[::1]:8080']);
    expect(() => outboundAllowFromEnv('http://example.com')).toThrow(/ZERO_OUTBOUND_ALLOW/);
    expect(() => outboundAllowFromEnv('example.com/path')).toThrow(/not a host or host:port/);
    expect(allowListed(new URL('https://internal.example/'), ['internal.example:443'])).toBe(true);
    expect(allowListed(new URL('http://internal.example/'), ['internal.example:443'])).toBe(false);
    expect(allowListed(new URL('http://internal.example/'), undefined)).toBe(false);
  });
});
