import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import * as z from 'zod';

/** One deployment the CLI talks to; its key in the file, or (`keyring: true`) in the system keyring. */
const profileSchema = z.object({
  url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL' }),
  key: z.string().min(1).optional(),
  keyring: z.literal(true).optional(),
});
export type Profile = z.infer<typeof profileSchema>;

const configSchema = z.object({
  current: z.string().default('default'),
  profiles: z.record(z.string(), profileSchema).default({}),
});
export type CliConfig = z.infer<typeof configSchema>;

/** `$ZERO_CONFIG`, or `~/.config/zero/config.json` (`$XDG_CONFIG_HOME` respected). */
export function configPath(env = process.env): string {
  if (env.ZERO_CONFIG) return env.ZERO_CONFIG;
  return join(env.XDG_CONFIG_HOME || join(homedir(), '.config'), 'zero', 'config.json');
}

/** The config file, or an empty one when there is none; a malformed file is an error naming the field. */
export async function readConfig(path = configPath()): Promise<CliConfig> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch {
    return { current: 'default', profiles: {} };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`${path} is not JSON; fix it or run "zero login" again after removing it`);
  }
  const parsed = configSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`${path}: ${issue.path.join('.') || '(root)'} ${issue.message}`);
  }
  return parsed.data;
}

/** Writes the config readable by its owner only (0600): it holds API keys where there is no keyring. */
export async function writeConfig(config: CliConfig, path = configPath()): Promise<void> {
  await mkdir(dirname(path), { recursive: true, mode: 0o700 });
  const temporary = `${path}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
  await chmod(temporary, 0o600);
  await rename(temporary, path);
}

/** Where the CLI keeps its input history: beside the config. */
export const historyPath = (env = process.env) => join(dirname(configPath(env)), 'history');

/** Where `npm start` listens (its `HOST` and `PORT`): `zero` looks there when nothing is configured. */
export const localUrl = (env = process.env) => `http://${env.HOST || '127.0.0.1'}:${env.PORT || 8787}`;

export interface Target {
  url: string;
  key?: string;
  /** Where the URL came from, for messages. */
  source: 'env' | 'profile' | 'default';
  profile: string;
  /** Why the profile's key could not be had, when it is in a keyring that cannot give it here. */
  keyProblem?: string;
}

/** The deployment to talk to: `ZERO_URL`/`ZERO_KEY` over the chosen profile, over the local default. */
export async function resolveTarget(profileName: string | undefined, env = process.env): Promise<Target> {
  const config = await readConfig(configPath(env));
  const name = profileName ?? env.ZERO_PROFILE ?? config.current;
  const profile = config.profiles[name];
  if (profileName && !profile) throw new Error(`no profile "${profileName}" in ${configPath(env)}; run "zero login --profile ${profileName}"`);
  const url = env.ZERO_URL || profile?.url;
  // At the local default, the key `npm start` was given (ZERO_DEV_KEY) works as well.
  let key = env.ZERO_KEY || profile?.key || (url ? undefined : env.ZERO_DEV_KEY || undefined);
  let keyProblem: string | undefined;
  // The keyring is asked only for the profile's own URL, and only when nothing else gave a key.
  if (!key && profile?.keyring && url === profile.url) {
    const { readKeyFromKeyring } = await import('./keyring');
    try {
      key = await readKeyFromKeyring(name, profile.url, env);
    } catch (error) {
      keyProblem = `the key of profile "${name}" is in the system keyring, which cannot give it here (${(error as Error).message})`;
    }
  }
  return { url: url ?? localUrl(env), key, source: env.ZERO_URL ? 'env' : profile?.url ? 'profile' : 'default', profile: name, ...(keyProblem ? { keyProblem } : {}) };
}
