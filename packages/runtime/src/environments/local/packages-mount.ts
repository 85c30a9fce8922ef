/** Where an environment's installed packages appear inside a sandbox, and what a command there needs to use them (kept apart from package-prefix.ts, whose installers load only when a run has packages). */
export const PACKAGES_MOUNT = '/opt/zero-env';

/**
 * What a command in a sandbox with the prefix mounted gets: its programs first on PATH (npm's
 * `node_modules/.bin`, pip's `bin`, apt's `usr/bin`), and where node, python and the loader find
 * the modules and libraries installed there.
 */
export function prefixEnvironment(mount = PACKAGES_MOUNT): { path: string[]; env: Record<string, string> } {
  return {
    path: [`${mount}/npm/node_modules/.bin`, `${mount}/pip/bin`, `${mount}/apt/usr/bin`, `${mount}/apt/bin`],
    env: {
      NODE_PATH: `${mount}/npm/node_modules`,
      PYTHONPATH: `${mount}/pip`,
      LD_LIBRARY_PATH: `${mount}/apt/usr/lib/x86_64-linux-gnu:${mount}/apt/usr/lib:${mount}/apt/lib/x86_64-linux-gnu`,
    },
  };
}
