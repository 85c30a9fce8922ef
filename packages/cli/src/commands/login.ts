import { createInterface } from 'node:readline/promises';
import { ZeroClient } from '@zero/client';
import { localUrl, configPath, readConfig, writeConfig } from '../config';
import { CliError, EXIT } from '../exit';

/**
 * `zero login`: checks the URL and key against the deployment (a request
 * that needs the key), then stores them as a profile: the key in the system
 * keyring where there is one, else in the config file, readable by the owner only.
 */
export async function loginCommand(options: { url?: string; key?: string; profile?: string }): Promise<number> {
  const path = configPath();
  const config = await readConfig(path);
  const name = options.profile ?? process.env.ZERO_PROFILE ?? config.current;
  const ask = async (question: string) => {
    if (!process.stdin.isTTY) throw new CliError(`${question.replace(/[:?] *$/, '')} is needed: pass it as an option`, EXIT.usage);
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return (await rl.question(question)).trim();
    } finally {
      rl.close();
    }
  };
  const url = (options.url ?? ((await ask(`URL [${config.profiles[name]?.url ?? localUrl()}]: `)) || config.profiles[name]?.url || localUrl())).replace(/\/+$/, '');
  const key = options.key ?? (await ask('API key: '));
  if (!key) throw new CliError('an API key is needed', EXIT.usage);
  try {
    new URL(url);
  } catch {
    throw new CliError(`"${url}" is not a URL`, EXIT.usage);
  }
  // A request that needs the key: a wrong key is caught here, not at the first chat.
  await new ZeroClient({ url, key, timeoutMs: 5000 }).listSessions({ limit: 1 });
  const { storeKeyInKeyring, forgetKeyInKeyring } = await import('../keyring');
  const previous = config.profiles[name];
  let saved: string;
  try {
    await storeKeyInKeyring(name, url, key);
    config.profiles[name] = { url, keyring: true };
    saved = `the key in the system keyring, the URL in ${path}`;
  } catch (error) {
    config.profiles[name] = { url, key };
    saved = `in ${path}, mode 0600: no system keyring here (${(error as Error).message})`;
  }
  config.current = name;
  await writeConfig(config, path);
  if (previous?.keyring && previous.url !== url) await forgetKeyInKeyring(name, previous.url);
  process.stderr.write(`logged in to ${url} as profile "${name}" (${saved})\n`);
  return EXIT.ok;
}
