import { readFile, stat } from 'node:fs/promises';
import { basename, extname, resolve } from 'node:path';
import type { AttachmentParam } from '@zero/agent/wire';
import { CliError, EXIT } from './exit';

/** The file types a model is sent as image and document blocks, by extension. */
const TYPES: Record<string, string> = { '.png': 'image/png', '.jpg': 'image/jpeg', '.jpeg': 'image/jpeg', '.gif': 'image/gif', '.webp': 'image/webp', '.pdf': 'application/pdf' };

/**
 * The `@path/to/file` mentions of a prompt that name an image or a PDF: read from `cwd` and sent as
 * attachments (the mention stays in the text, so the model knows which file is which). Other
 * mentions (`@someone`, a source file) are left as text. The server checks the limits; a named
 * file that cannot be read is a usage error naming it.
 */
export async function promptAttachments(message: string, cwd = process.cwd()): Promise<AttachmentParam[]> {
  const out: AttachmentParam[] = [];
  const seen = new Set<string>();
  for (const match of message.matchAll(/(?:^|\s)@("([^"]+)"|(\S+))/g)) {
    const path = (match[2] ?? match[3]!).replace(/[.,;:!?)]+$/, '');
    const mediaType = TYPES[extname(path).toLowerCase()];
    if (!mediaType || seen.has(path)) continue;
    seen.add(path);
    const full = resolve(cwd, path);
    try {
      if (!(await stat(full)).isFile()) throw new Error('not a file');
      out.push({ media_type: mediaType, data: (await readFile(full)).toString('base64'), filename: basename(path) });
    } catch (error) {
      throw new CliError(`@${path}: cannot read ${full} (${(error as Error).message})`, EXIT.usage);
    }
  }
  return out;
}
