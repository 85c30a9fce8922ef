import type { OutboundOptions } from '@zero/agent/net/outbound';
import { LambdaSandbox } from './lambda/lambda-sandbox';
import type { LocalSandboxOptions } from './local/bubblewrap';
import type { Sandbox, SandboxRunSpec, SandboxSettings } from './sandbox';

/** How a deployment builds its sandboxes (`ZERO_SANDBOX`, `ZERO_BWRAP`, `ZERO_SANDBOX_FUNCTION`). */
export interface SandboxOptions {
  /** The kind commands run in when no environment says: `local` by default, `lambda` where a sandbox function is named. */
  kind?: SandboxSettings['kind'];
  /** bubblewrap's path for the `local` kind. */
  bwrap?: string;
  /** The sandbox function (name or ARN) for the `lambda` kind. */
  functionName?: string;
  outbound?: OutboundOptions;
}

/** Reads the sandbox settings of a deployment; throws naming the variable when one is malformed. */
export function sandboxOptionsFromEnv(env: Record<string, string | undefined>): SandboxOptions {
  const options: SandboxOptions = {};
  if (env.ZERO_SANDBOX) {
    if (env.ZERO_SANDBOX !== 'local' && env.ZERO_SANDBOX !== 'lambda') throw new Error(`ZERO_SANDBOX must be local or lambda; got "${env.ZERO_SANDBOX}"`);
    options.kind = env.ZERO_SANDBOX;
  }
  if (env.ZERO_BWRAP) options.bwrap = env.ZERO_BWRAP;
  if (env.ZERO_SANDBOX_FUNCTION) {
    options.functionName = env.ZERO_SANDBOX_FUNCTION;
    options.kind ??= 'lambda';
  }
  if (options.kind === 'lambda' && !options.functionName) throw new Error('ZERO_SANDBOX=lambda needs ZERO_SANDBOX_FUNCTION (the sandbox function\'s name)');
  return options;
}

/** The sandbox of a kind; the `lambda` kind's client loads the Lambda SDK with its first command. */
export function createSandbox(options: SandboxOptions = {}): Sandbox {
  if ((options.kind ?? 'local') === 'lambda') {
    return new LambdaSandbox({ functionName: options.functionName! });
  }
  return new LazyLocalSandbox({ bwrap: options.bwrap, outbound: options.outbound });
}

/**
 * The `local` kind, its code (bubblewrap's arguments, the egress proxy) loaded with its first use: a
 * deployment whose commands run in the sandbox function never loads it, and no cold start does.
 */
class LazyLocalSandbox implements Sandbox {
  readonly kind = 'local' as const;
  private made?: Promise<Sandbox>;
  constructor(private readonly options: LocalSandboxOptions) {}

  availability() {
    return this.sandbox().then((sandbox) => sandbox.availability());
  }

  run(spec: SandboxRunSpec) {
    return this.sandbox().then((sandbox) => sandbox.run(spec));
  }

  private sandbox() {
    return (this.made ??= import('./local/bubblewrap').then(({ LocalSandbox }) => new LocalSandbox(this.options)));
  }
}
