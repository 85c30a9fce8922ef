import { createHash } from 'node:crypto';

/** The packages an environment installs, by package manager (the managers Zero installs for; others are refused by the caller). */
export interface PrefixPackages {
  apt: readonly string[];
  npm: readonly string[];
  pip: readonly string[];
}

/** A stable hash of the package lists (order kept: it is the order the managers install in); names an install and its status. */
export function packagesHash(packages: PrefixPackages): string {
  return createHash('sha256').update(JSON.stringify([packages.apt, packages.npm, packages.pip])).digest('hex').slice(0, 16);
}
