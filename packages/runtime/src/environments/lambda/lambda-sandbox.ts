import { mkdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { normalizeProjectPath } from '../../projects/paths';
import type { ProgramOutcome } from '../spawn';
import type { Sandbox, SandboxAvailability, SandboxRunSpec } from '../sandbox';
import { MAX_ARCHIVE_BASE64, packTree, sandboxResultSchema, type SandboxEvent } from './wire';

export interface LambdaSandboxOptions {
  /** The sandbox function's name or ARN (`ZERO_SANDBOX_FUNCTION`). */
  functionName: string;
  /** Where the Lambda API is (tests point it at a loopback stand-in), and its region. */
  endpoint?: string;
  region?: string;
  credentials?: { accessKeyId: string; secretAccessKey: string };
}

/**
 * Why a `lambda` environment cannot have this network allowlist, or undefined when it can (it is
 * empty). The sandbox function has no network at all: every command runs with no socket but
 * AF_UNIX (sandbox-exec) in a VPC with no route out, and no proxy carries allowlisted hosts there.
 * The message names the field; an environment store answers 400 with it, the sandbox refuses with it.
 */
export function lambdaNetworkRefusal(allow: readonly string[] | undefined): string | undefined {
  if (!allow?.length) return undefined;
  return `network.allow: the lambda kind has no network (its commands cannot open an IP socket and its subnets have no route out), so it cannot allow ${allow.slice(0, 5).join(', ')}${allow.length > 5 ? ', …' : ''}; leave the allowlist empty, or use a local or self_hosted environment`;
}

/**
 * The `lambda` kind: each command runs in the separate sandbox function (functions/sandbox.ts),
 * a Firecracker microVM with no permissions, no secret and no network. The working copy goes in as
 * a tar.gz (at most 4 MB base64, under Lambda's 6 MB payload) and the files the command changed come
 * back and are written into the copy. A command whose environment allows hosts is refused
 * (`lambdaNetworkRefusal`): network off is enforced, never silently widened or narrowed. The Lambda
 * SDK loads with the first command.
 */
export class LambdaSandbox implements Sandbox {
  readonly kind = 'lambda' as const;
  private client?: Promise<{ invoke(payload: string): Promise<string> }>;

  constructor(readonly options: LambdaSandboxOptions) {}

  async availability(): Promise<SandboxAvailability> {
    return { ok: true, detail: `the sandbox function ${this.options.functionName}` };
  }

  async run(spec: SandboxRunSpec): Promise<ProgramOutcome> {
    const started = Date.now();
    const failed = (startError: string): ProgramOutcome => ({ stdout: empty(), stderr: empty(), exitCode: null, signal: null, durationMs: Date.now() - started, timedOut: false, startError });
    const refusal = lambdaNetworkRefusal(spec.network?.allow);
    if (refusal) return failed(refusal);
    const archive = (await packTree(spec.workingCopy)).toString('base64');
    if (archive.length > MAX_ARCHIVE_BASE64) return failed(`the working copy is ${Math.round(archive.length / 1024)} KiB packed; the lambda sandbox takes at most ${MAX_ARCHIVE_BASE64 / 1024} KiB`);
    const event: SandboxEvent = { command: 'argv' in spec.command ? { argv: [...spec.command.argv] } : { script: spec.command.script }, cwd: spec.cwd || undefined, env: spec.env, limits: spec.limits, archive };
    let answer: string;
    try {
      answer = await (await this.lambda()).invoke(JSON.stringify(event));
    } catch (error) {
      return failed(`the sandbox function could not be invoked: ${(error as Error).message}`);
    }
    let parsed;
    try {
      const json = JSON.parse(answer) as { error?: string };
      if (typeof json.error === 'string') return failed(`the sandbox function refused the command: ${json.error}`);
      parsed = sandboxResultSchema().parse(json);
    } catch (error) {
      return failed(`the sandbox function's answer is not readable: ${(error as Error).message}`);
    }
    // Paths come back through the project normaliser: a change never lands outside the copy.
    for (const change of parsed.changes) {
      const path = join(spec.workingCopy, normalizeProjectPath(change.path));
      if (change.deleted) await rm(path, { force: true });
      else {
        await mkdir(dirname(path), { recursive: true });
        await writeFile(path, Buffer.from(change.body ?? '', 'base64'));
      }
    }
    const { outcome } = parsed;
    const note = parsed.omitted.length ? `\n[the sandbox function did not send back ${parsed.omitted.length} changed file(s), over its ${4} MB answer: ${parsed.omitted.slice(0, 10).join(', ')}]` : '';
    return { ...outcome, signal: outcome.signal as NodeJS.Signals | null, stderr: { ...outcome.stderr, text: outcome.stderr.text + note } };
  }

  private lambda() {
    this.client ??= (async () => {
      const { LambdaClient, InvokeCommand } = await import('@aws-sdk/client-lambda');
      const client = new LambdaClient({
        ...(this.options.endpoint ? { endpoint: this.options.endpoint } : {}),
        ...(this.options.region ? { region: this.options.region } : {}),
        ...(this.options.credentials ? { credentials: this.options.credentials } : {}),
      });
      return {
        invoke: async (payload: string) => {
          const result = await client.send(new InvokeCommand({ FunctionName: this.options.functionName, Payload: Buffer.from(payload) }));
          const body = Buffer.from(result.Payload ?? new Uint8Array()).toString('utf8');
          if (result.FunctionError) throw new Error(`${result.FunctionError}: ${body.slice(0, 500)}`);
          return body;
        },
      };
    })();
    return this.client;
  }
}

const empty = () => ({ text: '', bytes: 0, truncated: false });
