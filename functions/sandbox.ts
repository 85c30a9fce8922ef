import { runSandboxEvent, strayReaperFromEnv } from '@zero/runtime/environments/lambda/handler';

/**
 * The processes present when the module loads are the runtime's own; with ZERO_SANDBOX_REAP=1 (set
 * by sst.config.ts: a Lambda execution environment's process table is this function's alone) every
 * other process is killed after each command, so none outlives its invocation.
 */
const reaper = strayReaperFromEnv();

/**
 * The sandbox function (the `lambda` kind of environment): runs one command over a working copy
 * passed in the event, with /tmp wiped before and after and every process the command left killed,
 * and answers with the outcome and the changed files. Deployed with no links, no permissions and no
 * secret, in subnets with no route out (sst.config.ts). Every command starts under
 * ZERO_SANDBOX_EXEC (sandbox-exec: no socket but AF_UNIX), so it reaches neither the network nor the
 * Lambda Runtime API on 127.0.0.1:9001, which would give it the next invocation, another session's.
 */
export async function handler(event: unknown) {
  return runSandboxEvent(event, { root: process.env.ZERO_SANDBOX_ROOT || '/tmp', reaper, confine: process.env.ZERO_SANDBOX_EXEC || undefined });
}
