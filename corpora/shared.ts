import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** `shared/security-corpora` beside the project or beside one of its parent folders (a worktree sits deeper than the main checkout). */
export function corporaDir(): string {
  let dir = join(import.meta.dirname, '..');
  for (;;) {
    const candidate = join(dir, '..', 'shared', 'security-corpora');
    if (existsSync(candidate)) return candidate;
    const parent = dirname(dir);
    if (parent === dir) throw new Error('../shared/security-corpora was not found beside the project or any parent folder');
    dir = parent;
  }
}
