/** Environments: where commands run. One Sandbox interface; the `local` (bubblewrap) and `lambda` kinds. */
export * from './sandbox';
export { HIDDEN_UNDER_USR, LocalSandbox, SANDBOX_WORKSPACE, type LocalSandboxOptions } from './local/bubblewrap';
export { createSandbox, sandboxOptionsFromEnv, type SandboxOptions } from './create-sandbox';
export { LambdaSandbox, lambdaNetworkRefusal, type LambdaSandboxOptions } from './lambda/lambda-sandbox';
