import { SandboxUnavailableError, type Sandbox, type SandboxAvailability, type SandboxRunSpec } from '../sandbox';
import type { ProgramOutcome } from '../../tools/command/spawn';

export interface LambdaSandboxOptions {
  /** The sandbox function's name or ARN (`ZERO_SANDBOX_FUNCTION`). */
  functionName: string;
}

/** The `lambda` kind: each command runs in the separate sandbox function (see functions/sandbox.ts). */
export class LambdaSandbox implements Sandbox {
  readonly kind = 'lambda' as const;
  constructor(readonly options: LambdaSandboxOptions) {}

  async availability(): Promise<SandboxAvailability> {
    return { ok: true, detail: `the sandbox function ${this.options.functionName}` };
  }

  async run(_spec: SandboxRunSpec): Promise<ProgramOutcome> {
    throw new SandboxUnavailableError('the lambda sandbox client is not built yet');
  }
}
