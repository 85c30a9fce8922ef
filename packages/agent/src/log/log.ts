import { redact } from './redact';

/**
 * Zero's structured logs: one JSON object per line on the console (errors and
 * warnings on stderr), as CloudWatch reads them. Only named fields of plain
 * values are written — never a request body, a message or a tool input — and
 * every string passes through the redaction of the deployment's secrets
 * (model keys) and anything shaped like an Anthropic key, so that an error
 * message quoting one does not leak it. `ZERO_LOG_LEVEL` (`debug`, `info`,
 * `warn`, `error`; `info` by default) sets what is written.
 */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error';
export type LogFields = Record<string, string | number | boolean | null | undefined>;

const RANK: Record<LogLevel, number> = { debug: 10, info: 20, warn: 30, error: 40 };
/** The longest string field written: a stack trace is cut, not logged whole. */
const MAX_FIELD_CHARS = 2_000;
const secrets = new Set<string>();

/** Adds secrets that no log line may contain (the runtime adds the model and provider keys it is given). */
export function addLogSecrets(values: readonly string[]): void {
  for (const value of values) if (value) secrets.add(value);
}

function enabled(level: LogLevel): boolean {
  const wanted = process.env.ZERO_LOG_LEVEL as LogLevel | undefined;
  return RANK[level] >= (RANK[wanted ?? 'info'] ?? RANK.info);
}

function write(level: LogLevel, msg: string, fields: LogFields): void {
  if (!enabled(level)) return;
  const known = [...secrets];
  const line: Record<string, unknown> = { level, time: new Date().toISOString(), msg };
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    line[name] = typeof value === 'string' ? redact(value.length > MAX_FIELD_CHARS ? `${value.slice(0, MAX_FIELD_CHARS)}…` : value, known) : value;
  }
  // Through the console, as Lambda and the tests' log captures read it.
  console[level === 'debug' ? 'log' : level === 'info' ? 'log' : level](JSON.stringify(line));
}

/** An error's message and stack as one string field (redacted like any other). */
export const errorText = (error: unknown): string => String((error as Error)?.stack ?? error);

export const log = {
  debug: (msg: string, fields: LogFields = {}) => write('debug', msg, fields),
  info: (msg: string, fields: LogFields = {}) => write('info', msg, fields),
  warn: (msg: string, fields: LogFields = {}) => write('warn', msg, fields),
  error: (msg: string, fields: LogFields = {}) => write('error', msg, fields),
};
