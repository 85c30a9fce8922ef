/**
 * Secrets an http_request header may name (`{{secret:ZERO_HTTP_SECRET_GITHUB}}`): the model sees and
 * sends only the name; the value is read from the environment at call time, put on the wire, and
 * scrubbed from everything the tool returns, including what a server reflects back.
 */

/** The only variables a reference may name, so a model cannot read out the deployment's other settings. */
export const HTTP_SECRET_PREFIX = 'ZERO_HTTP_SECRET_';

const REFERENCE = /\{\{\s*secret:([^}]*)\}\}/g;
const SECRET_NAME = /^ZERO_HTTP_SECRET_[A-Z0-9_]+$/;

/** True when the text names a secret; a reference outside header values is refused rather than sent literally. */
export function mentionsSecret(text: string): boolean {
  return /\{\{\s*secret:/.test(text);
}

/** The secrets one request resolved: name → value, for scrubbing. */
export type ResolvedSecrets = Map<string, string>;

/**
 * Replaces every `{{secret:NAME}}` in a header value with the variable's value. Throws an Error whose
 * message names the reference (never a value) when the name is not allowed, unset or unusable in a header.
 */
export function resolveSecrets(value: string, secrets: ResolvedSecrets, env: NodeJS.ProcessEnv = process.env): string {
  return value.replace(REFERENCE, (_whole, raw: string) => {
    const name = raw.trim();
    if (!SECRET_NAME.test(name)) throw new Error(`"${name}" cannot be referenced: only secrets named ${HTTP_SECRET_PREFIX}<NAME> (capitals, digits, _) can`);
    const secret = env[name];
    if (!secret) throw new Error(`the secret ${name} is not set on this deployment`);
    // A line break would let a value start a header of its own.
    if (/[\r\n\0]/.test(secret)) throw new Error(`the secret ${name} holds a line break or NUL and cannot go in a header`);
    secrets.set(name, secret);
    return secret;
  });
}

/**
 * Removes the secrets' values from text the model, the events or the log will see: the value itself and
 * the forms a server is likely to reflect it in (JSON-escaped, URL-encoded, base64).
 */
export function scrubSecrets(text: string, secrets: ResolvedSecrets): string {
  let out = text;
  for (const [name, value] of secrets) {
    const forms = new Set([value, JSON.stringify(value).slice(1, -1), encodeURIComponent(value), Buffer.from(value).toString('base64')]);
    // Longest first, so a form that contains another is replaced whole.
    for (const form of [...forms].sort((a, b) => b.length - a.length)) {
      if (form) out = out.split(form).join(`[secret ${name}]`);
    }
  }
  return out;
}
