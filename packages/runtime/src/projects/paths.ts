import { defineErrorClass } from '@zero/agent/errors';
import { projectIdSchema } from '@zero/agent/wire';

/** S3's limit on a key's length, in UTF-8 bytes. */
export const MAX_KEY_BYTES = 1024;

/** The areas of a project in the bucket. */
export type ProjectArea = 'files' | 'analysis' | 'reports';

/** Why a path was refused, phrased for the model and the API client. */
export class PathError extends defineErrorClass('PathError') {}

const PERCENT_ESCAPE = /%[0-9A-Fa-f]{2}/;
// C0 and C1 controls, NUL included.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
const DRIVE = /^[A-Za-z]:/;

/**
 * The one normaliser for paths inside a project. Takes a path relative to an
 * area (`src/app.ts`), returns it unchanged or throws a PathError. Refused:
 * empty, absolute, drive letters, backslashes, control characters and NUL,
 * percent escapes (paths are literal, so `%2e%2e` can only be an attack),
 * `.`/`..` segments in the text or in its NFKC form (fullwidth dots), empty
 * segments. `.hidden` and `..backup` are ordinary names.
 */
export function normalizeProjectPath(input: string): string {
  if (typeof input !== 'string' || input.length === 0) throw new PathError('the path is empty');
  if (CONTROL.test(input)) throw new PathError('the path contains a control character');
  if (input.includes('\\')) throw new PathError('the path contains a backslash; use "/" between folders');
  if (PERCENT_ESCAPE.test(input)) throw new PathError('the path contains a percent escape; give the literal file name');
  if (input.startsWith('/')) throw new PathError('the path is absolute; give it relative to the project root, e.g. "src/index.ts"');
  if (DRIVE.test(input)) throw new PathError('the path starts with a drive letter; give it relative to the project root');
  for (const form of new Set([input, input.normalize('NFKC')])) {
    const segments = form.split('/');
    if (segments.some((s) => s === '.' || s === '..')) throw new PathError('the path contains a "." or ".." segment');
    if (segments.some((s) => s === '')) throw new PathError('the path contains an empty segment ("//" or a trailing "/")');
    if (form.includes('\\')) throw new PathError('the path contains a backslash');
  }
  return input;
}

/** Like normalizeProjectPath, for an optional folder: undefined means the root; one trailing "/" is allowed. */
export function normalizeProjectFolder(input: string | undefined): string {
  if (input === undefined) return '';
  return normalizeProjectPath(input.endsWith('/') ? input.slice(0, -1) : input);
}

/** The key prefix of a project area, ending in "/". */
export function areaPrefix(projectId: string, area: ProjectArea): string {
  return `projects/${projectIdSchema.parse(projectId)}/${area}/`;
}

/** The S3 key of a path in a project area; the path is normalised and the key checked against the prefix and S3's length limit. */
export function projectKey(projectId: string, area: ProjectArea, path: string): string {
  const prefix = areaPrefix(projectId, area);
  const key = prefix + normalizeProjectPath(path);
  if (Buffer.byteLength(key) > MAX_KEY_BYTES) throw new PathError(`the path is too long (the key would be over ${MAX_KEY_BYTES} bytes)`);
  if (!key.startsWith(prefix)) throw new PathError('the path leaves the project');
  return key;
}

/**
 * The path of a listed key relative to its prefix, or undefined when the key
 * is not safely inside the prefix. Listings are checked again so that a key
 * written by other means can never be read as if it belonged to the project.
 */
export function pathFromKey(prefix: string, key: string): string | undefined {
  if (!key.startsWith(prefix)) return undefined;
  try {
    return normalizeProjectPath(key.slice(prefix.length));
  } catch {
    return undefined;
  }
}
