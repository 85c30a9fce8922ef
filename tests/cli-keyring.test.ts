import { readFileSync, statSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV_KEY, startHarness, type Harness } from './support/harness';
import { cliEnv, runCli } from './support/cli';
import { startSecretService, type SecretService } from './support/secret-service';

const config = (env: Record<string, string | undefined>) => JSON.parse(readFileSync(env.ZERO_CONFIG!, 'utf8'));

describe('zero login keeps the key in the system keyring, or in a 0600 file where there is none', () => {
  let h: Harness;
  let keyring: SecretService;
  beforeAll(async () => {
    h = await startHarness();
    keyring = await startSecretService();
  });
  afterAll(async () => {
    await keyring?.stop();
    await h?.close();
  });

  it('with no Secret Service on the machine: the key goes to the 0600 file, and login says why', async () => {
    // A D-Bus address where nothing listens: what a server or a container without a desktop session has.
    const env = cliEnv({ ZERO_KEYRING: '', DBUS_SESSION_BUS_ADDRESS: `unix:path=${keyring.env.XDG_RUNTIME_DIR}/nothing-here` });
    const login = await runCli(['login', '--url', h.url, '--key', DEV_KEY], { env });
    expect(login.code).toBe(0);
    expect(login.stderr).toMatch(/^logged in to .* \(in .*config\.json, mode 0600: no system keyring here \(.+\)\)\n$/);
    expect(login.stderr).not.toContain(DEV_KEY);
    expect(statSync(env.ZERO_CONFIG!).mode & 0o777).toBe(0o600);
    expect(config(env)).toEqual({ current: 'default', profiles: { default: { url: h.url, key: DEV_KEY } } });
    h.fake.script({ text: 'from the file' });
    expect(await runCli(['agent', '--agent', 'tester', '-q', 'hi'], { env })).toMatchObject({ code: 0, stdout: 'from the file\n' });
  });

  it('with a Secret Service: the key is in the keyring, not in the file, and every later command reads it there', async () => {
    const env = cliEnv({ ZERO_KEYRING: '', ...keyring.env });
    const login = await runCli(['login', '--url', h.url, '--key', DEV_KEY, '--profile', 'work'], { env });
    expect(login).toMatchObject({ code: 0, stderr: `logged in to ${h.url} as profile "work" (the key in the system keyring, the URL in ${env.ZERO_CONFIG})\n` });
    expect(config(env)).toEqual({ current: 'work', profiles: { work: { url: h.url, keyring: true } } });
    expect(readFileSync(env.ZERO_CONFIG!, 'utf8')).not.toContain(DEV_KEY);

    h.fake.script({ text: 'from the keyring' });
    expect(await runCli(['agent', '--agent', 'tester', '-q', 'hi'], { env })).toMatchObject({ code: 0, stdout: 'from the keyring\n' });

    // The same config without the keyring: the CLI says where the key is and what to do, without it.
    const away = await runCli(['sessions'], { env: { ...env, DBUS_SESSION_BUS_ADDRESS: `unix:path=${keyring.env.XDG_RUNTIME_DIR}/nothing-here` } });
    expect(away.code).toBe(6);
    expect(away.stderr).toMatch(/^zero: the key of profile "work" is in the system keyring, which cannot give it here \(.+\); run "zero login" or set ZERO_KEY\n$/);
    // ZERO_KEY still wins over the keyring.
    expect((await runCli(['sessions'], { env: { ...env, ZERO_KEY: 'zk_wrong' } })).code).toBe(6);
  });
});
