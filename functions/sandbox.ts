import { runSandboxEvent } from '@zero/core/environments/lambda-handler';

/**
 * The sandbox function (the `lambda` kind of environment): runs one command over a working copy
 * passed in the event, with /tmp wiped before and after, and answers with the outcome and the
 * changed files. Deployed with no links, no permissions, no secret and no VPC (sst.config.ts).
 */
export async function handler(event: unknown) {
  return runSandboxEvent(event, { root: process.env.ZERO_SANDBOX_ROOT || '/tmp' });
}
