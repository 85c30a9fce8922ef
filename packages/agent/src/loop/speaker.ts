import { createHash } from 'node:crypto';
import type { Author } from '../wire';

const WEBHOOK_AUTHOR = 'webhook:';

/** The author id of the messages a hook writes: their text is filled in from a payload sent from outside. */
export function webhookAuthorId(hookId: string): string {
  return `${WEBHOOK_AUTHOR}${hookId}`;
}

/** Whether a message was written by a hook (see `webhookAuthorId`). */
export function isWebhookAuthor(authorId: string | undefined): boolean {
  return authorId?.startsWith(WEBHOOK_AUTHOR) ?? false;
}

/**
 * A user message as the model reads it. A person's message starts with a
 * speaker tag that names them by user id, display name second
 * (`[user:alice "Alice"] …`): a display name is whatever its owner chose, so
 * it can neither close the tag nor start a line, and a line of the message
 * that begins like a tag is escaped. A hook's message is fenced as data. A
 * message without an author (a delegated task) is passed on as written.
 */
export function speakerText(text: string, author: Author | undefined): string {
  if (!author) return text;
  if (author.id.startsWith(WEBHOOK_AUTHOR)) return `${speakerTag(author)}\n${fenceOutsideText(text)}`;
  return `${speakerTag(author)} ${text.replace(/^(\s*)\[(?=user:)/gimu, '$1\\[')}`;
}

/** `[user:<id> "<display name>"]`, or `[user:<id>]` for an author without a name. */
export function speakerTag(author: Author): string {
  const name = author.name ? displayName(author.name) : '';
  return `[user:${userIdText(author.id)}${name ? ` "${name}"` : ''}]`;
}

/**
 * Text from outside Zero between two fence lines. Their id is a hash of the
 * text, so the text cannot contain its own closing fence: whatever it says,
 * it cannot end the block early and continue as a speaker. Deterministic, so
 * the conversation stays the same from one step to the next (prompt cache).
 */
export function fenceOutsideText(text: string): string {
  const id = createHash('sha256').update(text).digest('hex').slice(0, 16);
  return `<<<outside-data ${id}>>>\n${text}\n<<<end outside-data ${id}>>>`;
}

/** A user id as written in a tag: anything but a few plain characters is percent-encoded, so two ids never look alike. */
function userIdText(id: string): string {
  return id.replace(/[^A-Za-z0-9._@+:-]/gu, (c) => [...Buffer.from(c, 'utf8')].map((b) => `%${b.toString(16).toUpperCase().padStart(2, '0')}`).join(''));
}

/**
 * A display name on one line, without quotes or brackets of any script
 * (parentheses stay: "Olivia (owner)" is harmless once the id comes first),
 * without control, format (zero-width, bidi) or line-separator characters.
 */
function displayName(name: string): string {
  return name
    .replace(/[\p{C}\p{Z}\s]+/gu, ' ')
    .replace(/[\p{Ps}\p{Pe}\p{Pi}\p{Pf}"＂]/gu, (c) => (c === '(' || c === ')' ? c : ''))
    .trim()
    .slice(0, 100);
}
