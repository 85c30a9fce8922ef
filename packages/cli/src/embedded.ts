import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The repository this CLI belongs to: packages/cli/{src,dist}/… → the root. */
export const repoRoot = () => resolve(fileURLToPath(import.meta.url), '..', '..', '..', '..');

/**
 * What the CLI takes of local/embedded.ts (loaded by path, at run time): the CLI is a package below the
 * local composition and may not import it.
 */
interface LocalEmbedded {
  startEmbedded(options: { dataDir: string; agentsDir: string }): Promise<{ url: string; key: string; close(): Promise<void> }>;
}

/**
 * Starts Zero's local stack (local/embedded.ts) in this process. It is
 * TypeScript loaded through tsx, not part of the CLI's bundle: the AWS SDK and
 * the local servers are loaded only when they are needed.
 */
export async function startEmbedded() {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
  const root = repoRoot();
  const dataDir = resolve(process.env.ZERO_DATA_DIR ?? join(root, '.zero'));
  process.stderr.write(`zero: no server at the local default; running Zero in this process (data: ${dataDir})\n`);
  const { register } = await import('tsx/esm/api');
  // Stays registered: the local modules load more TypeScript as they run.
  register();
  const local = (await import(pathToFileURL(join(root, 'local', 'embedded.ts')).href)) as LocalEmbedded;
  return local.startEmbedded({ dataDir, agentsDir: join(root, 'agents') });
}
