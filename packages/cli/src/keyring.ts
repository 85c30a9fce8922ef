/**
 * The system keyring (Secret Service on Linux, the macOS Keychain, Windows Credential Manager)
 * through `@napi-rs/keyring`, whose prebuilt binary comes inside its npm package. Each profile's
 * key is one entry of the service `zero`, its account the profile's name and URL. On Linux the
 * entry is pinned to the Secret Service: the library's other Linux store, the kernel keyring, forgets
 * its keys at logout, and a key that vanishes is worse than the 0600 file. Every function here fails
 * with a KeyringUnavailable naming why, never with the key in the message, and gives up after
 * `KEYRING_TIMEOUT_MS` (a keyring waiting on an unlock prompt nobody answers).
 */

const SERVICE = 'zero';
const KEYRING_TIMEOUT_MS = 5_000;

/** There is no usable keyring (no Secret Service running, no D-Bus session, a locked keychain), or `ZERO_KEYRING=off`. */
class KeyringUnavailable extends Error {
  override name = 'KeyringUnavailable';
}

/** The keyring entry of a profile: a key stored for one URL is never read for another. */
const account = (profile: string, url: string) => `${profile} ${url}`;

async function entry(profile: string, url: string, env: NodeJS.ProcessEnv) {
  if (env.ZERO_KEYRING === 'off') throw new KeyringUnavailable('ZERO_KEYRING=off');
  let library: typeof import('@napi-rs/keyring');
  try {
    library = await import('@napi-rs/keyring');
  } catch (error) {
    throw new KeyringUnavailable(`the keyring library does not load here: ${(error as Error).message}`);
  }
  try {
    // Opening the entry is where a missing D-Bus session or Secret Service shows.
    return new library.AsyncEntry(SERVICE, account(profile, url), { linux: { store: 'secret-service' } });
  } catch (error) {
    throw new KeyringUnavailable((error as Error).message);
  }
}

/** Stores the key, then reads it back: a keyring that takes it but cannot give it back is no keyring. */
export async function storeKeyInKeyring(profile: string, url: string, key: string, env = process.env): Promise<void> {
  const slot = await entry(profile, url, env);
  try {
    await slot.setPassword(key, AbortSignal.timeout(KEYRING_TIMEOUT_MS));
    if ((await slot.getPassword(AbortSignal.timeout(KEYRING_TIMEOUT_MS))) !== key) throw new Error('the stored key could not be read back');
  } catch (error) {
    throw new KeyringUnavailable((error as Error).message);
  }
}

/** The key a profile keeps in the keyring; KeyringUnavailable when it cannot be read or is not there. */
export async function readKeyFromKeyring(profile: string, url: string, env = process.env): Promise<string> {
  const slot = await entry(profile, url, env);
  let key: string | null | undefined;
  try {
    key = await slot.getPassword(AbortSignal.timeout(KEYRING_TIMEOUT_MS));
  } catch (error) {
    throw new KeyringUnavailable((error as Error).message);
  }
  if (!key) throw new KeyringUnavailable('the keyring has no key for it');
  return key;
}

/** Removes a profile's entry when there is one and a keyring to remove it from; never fails. */
export async function forgetKeyInKeyring(profile: string, url: string, env = process.env): Promise<void> {
  try {
    await (await entry(profile, url, env)).deletePassword(AbortSignal.timeout(KEYRING_TIMEOUT_MS));
  } catch {
    // nothing stored, or no keyring: nothing to forget
  }
}
