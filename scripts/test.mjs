#!/usr/bin/env node
/**
 * `npm test`: vitest's two projects one after the other (vitest.config.ts): `parallel`, two files at a
 * time, then `serial`, the files that time a real deadline or kill a process, one at a time. Arguments
 * (test files, `-t name`) go to both; a project none of the named files belongs to passes with nothing run.
 * Both run even when the first fails, so one run reports every failure; the exit code is the first non-zero.
 */
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';

const vitest = createRequire(import.meta.url).resolve('vitest/vitest.mjs');
const args = process.argv.slice(2);
let code = 0;
for (const [project, workers] of [['parallel', 2], ['serial', 1]]) {
  const run = spawnSync(process.execPath, [vitest, 'run', '--project', project, `--maxWorkers=${workers}`, '--passWithNoTests', ...args], { stdio: 'inherit' });
  code ||= run.status ?? 1;
}
process.exit(code);
