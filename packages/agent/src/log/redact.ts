/** Replaces every occurrence of a secret (and anything shaped like an Anthropic key) with a marker. */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) if (secret && secret.length >= 8) out = out.split(secret).join('[redacted]');
  return out.replace(/sk-ant-[A-Za-z0-9_-]{8,}/g, '[redacted]');
}
