import { defineErrorClass } from '@zero/agent/errors';
import type { McpServerConfig } from '@zero/agent/wire/mcp-servers';

/** Looks a secret up by name (by default in the environment); undefined when it is not set. */
export type McpSecretResolver = (name: string) => string | undefined;

/** A server references a secret that is not set: it cannot connect. The message names the secret, never a value. */
export class McpSecretMissing extends defineErrorClass('McpSecretMissing') {}

const REFERENCE = /\$\{([A-Z0-9_]+)\}/g;

/** Every secret a server definition references, by name (its headers, environment and OAuth settings). */
export function referencedSecrets(config: McpServerConfig): string[] {
  const values =
    config.type === 'stdio'
      ? Object.values(config.env ?? {})
      : [...Object.values(config.headers ?? {}), config.oauth?.refresh_token ?? '', config.oauth?.client_secret ?? ''];
  return [...new Set(values.flatMap((value) => [...value.matchAll(REFERENCE)].map((match) => match[1]!)))];
}

/** Where the values sent to a server are collected, with their names, to be scrubbed from what it sends back. */
export interface SecretSink {
  add(value: string, name?: string): unknown;
}

/**
 * Fills a header or environment value's secret references, at connect time.
 * The values resolved are added to `used`, so that whatever the server sends
 * back is cleaned of them before the model, an event or a log can see it.
 */
export function fillSecrets(value: string, resolve: McpSecretResolver, used: SecretSink): string {
  return value.replace(REFERENCE, (_, name: string) => {
    const secret = resolve(name);
    if (!secret) throw new McpSecretMissing(`the secret ${name} is not set in the server's environment`);
    used.add(secret, name);
    return secret;
  });
}
