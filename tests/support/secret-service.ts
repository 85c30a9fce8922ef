import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface SecretService {
  /** The environment a process needs to reach it (`DBUS_SESSION_BUS_ADDRESS`, its own HOME). */
  env: Record<string, string>;
  stop(): Promise<void>;
}

/**
 * A Secret Service of its own for a test: a private D-Bus session bus and gnome-keyring's daemon
 * on it, its login keyring created and unlocked, its files in a temporary HOME. Resolves once the
 * daemon owns `org.freedesktop.secrets` on the bus.
 */
export async function startSecretService(): Promise<SecretService> {
  const home = mkdtempSync(join(tmpdir(), 'zero-keyring-'));
  const runtime = join(home, 'run');
  mkdirSync(runtime, { mode: 0o700 });
  const base = { ...process.env, HOME: home, XDG_DATA_HOME: join(home, 'data'), XDG_RUNTIME_DIR: runtime } as Record<string, string>;
  const children: ChildProcess[] = [];
  const stop = async () => {
    for (const child of children.reverse()) {
      if (child.exitCode !== null) continue;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  };
  try {
    const bus = spawn('dbus-daemon', ['--session', '--nofork', '--print-address=1', `--address=unix:path=${join(runtime, 'bus')}`], { env: base, stdio: ['ignore', 'pipe', 'ignore'] });
    children.push(bus);
    const address = await new Promise<string>((resolve, reject) => {
      let out = '';
      bus.stdout!.on('data', (chunk) => {
        out += chunk;
        if (out.includes('\n')) resolve(out.split('\n')[0]!.trim());
      });
      bus.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)));
      bus.once('error', reject);
    });
    const env = { ...base, DBUS_SESSION_BUS_ADDRESS: address };
    const keyring = spawn('gnome-keyring-daemon', ['--foreground', '--unlock', '--components=secrets'], { env, stdio: ['pipe', 'ignore', 'inherit'] });
    children.push(keyring);
    keyring.stdin!.end('test-keyring-password');
    // Waits on the bus itself: the service is there when its name has an owner.
    for (let tries = 0; ; tries++) {
      if (tries === 400) throw new Error('gnome-keyring-daemon did not take org.freedesktop.secrets within 20 s');
      if (keyring.exitCode !== null) throw new Error(`gnome-keyring-daemon exited with ${keyring.exitCode}`);
      const owned = spawnSync('dbus-send', ['--session', '--print-reply', '--dest=org.freedesktop.DBus', '/org/freedesktop/DBus', 'org.freedesktop.DBus.NameHasOwner', 'string:org.freedesktop.secrets'], { env, encoding: 'utf8' });
      if (owned.stdout.includes('boolean true')) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return { env: { HOME: home, XDG_DATA_HOME: base.XDG_DATA_HOME!, XDG_RUNTIME_DIR: runtime, DBUS_SESSION_BUS_ADDRESS: address }, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}
