import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { randomUUID } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import Anthropic from '@anthropic-ai/sdk';
import { betaAgentToolset20260401 } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import { configPath, resolveTarget } from '../config';
import { CliError, EXIT } from '../exit';

type WorkerOptions = { environment: string; dir: string; leaseSeconds: string; once?: boolean };
type Work = Anthropic.Beta.Environments.BetaSelfHostedWork;
type Tool = ReturnType<typeof betaAgentToolset20260401>[number] & { name: string; run: (input: unknown, context: unknown) => Promise<unknown>; parse?: (input: unknown) => unknown; close?: () => unknown };

/** How many sessions keep their tools (a persistent shell each) at once; the oldest is closed past it. */
const MAX_SESSIONS = 16;

const line = (text: string) => process.stderr.write(`zero worker: ${text}\n`);
const status = (error: unknown) => (error instanceof Anthropic.APIError ? error.status : undefined);

/**
 * The environment the model's tools run with: this process's, without `ANTHROPIC_*` and `ZERO_*`
 * variables, without any variable that holds the worker's key, and without any that names the
 * CLI's config file (which holds keys). It does not hide files: the model runs as this user, so
 * the worker's machine must hold nothing (other keys, that config file) the model should not read.
 */
export function toolEnvironment(key: string, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const config = configPath(env);
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined || /^(ANTHROPIC|ZERO)_/i.test(name)) continue;
    if (value.includes(key) || value.includes(config)) continue;
    out[name] = value;
  }
  return out;
}

/** A tool's result as text blocks: its text, or its non-text blocks as JSON. */
function textBlocks(content: unknown): { type: 'text'; text: string }[] {
  if (typeof content === 'string') return [{ type: 'text', text: content || '(no output)' }];
  if (!Array.isArray(content) || content.length === 0) return [{ type: 'text', text: '(no output)' }];
  return content.map((block: { type?: string; text?: string }) => ({ type: 'text' as const, text: block.type === 'text' ? block.text || '(no output)' : JSON.stringify(block) }));
}

/**
 * `zero worker --environment <id>`: serves a self-hosted environment. It long-polls the queue with
 * the official SDK's `beta.environments.work` calls, acknowledges one call at a time, keeps its lease
 * with heartbeats while it runs the call with the SDK's own toolset (`bash`, `read`, `write`, `edit`,
 * `glob`, `grep`) in `--dir`, posts the result to the session (`user.tool_result`) and stops the item.
 * A call whose lease is lost is not answered (the server failed it already); nothing is retried.
 */
export async function workerCommand(profile: string | undefined, options: WorkerOptions): Promise<number> {
  if (!/^env_[A-Za-z0-9_]{1,64}$/.test(options.environment)) throw new CliError(`--environment: "${options.environment}" is not an environment id (env_…)`, EXIT.usage);
  const leaseSeconds = Number(options.leaseSeconds);
  if (!Number.isInteger(leaseSeconds) || leaseSeconds < 2 || leaseSeconds > 600) throw new CliError('--lease-seconds: must be a whole number from 2 to 600', EXIT.usage);
  const target = await resolveTarget(profile);
  if (!target.key) throw new CliError(`no key for ${target.url}; run "zero login" or set ZERO_KEY`, EXIT.unauthorized);
  const workdir = resolve(options.dir);
  await mkdir(workdir, { recursive: true });
  const client = new Anthropic({ apiKey: target.key, baseURL: target.url, maxRetries: 2 });
  const work = client.beta.environments.work;
  const environmentId = options.environment;
  const workerId = `${hostname()}-${randomUUID()}`;
  const env = toolEnvironment(target.key);
  const toolsBySession = new Map<string, Map<string, Tool>>();
  const stop = new AbortController();
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => stop.abort());

  const toolsFor = (sessionId: string) => {
    let tools = toolsBySession.get(sessionId);
    if (!tools) {
      tools = new Map((betaAgentToolset20260401({ workdir, env }) as Tool[]).map((tool) => [tool.name, tool]));
      toolsBySession.set(sessionId, tools);
      if (toolsBySession.size > MAX_SESSIONS) {
        const [oldest, old] = toolsBySession.entries().next().value!;
        toolsBySession.delete(oldest);
        for (const tool of old.values()) void Promise.resolve(tool.close?.()).catch(() => undefined);
      }
    }
    return tools;
  };

  /** Runs one acknowledged item under its lease; true when its result was accepted. */
  const serve = async (item: Work): Promise<boolean> => {
    const call = { id: item.metadata['zero.tool_use_id'] ?? '', tool: item.metadata['zero.tool'] ?? '', input: item.metadata['zero.input'] ?? '{}' };
    const lease = new AbortController();
    let last = 'NO_HEARTBEAT';
    const beat = async () => {
      try {
        const answer = await work.heartbeat(item.id, { environment_id: environmentId, expected_last_heartbeat: last, desired_ttl_seconds: leaseSeconds });
        last = answer.last_heartbeat;
        if (!answer.lease_extended || answer.state === 'stopping' || answer.state === 'stopped') lease.abort();
      } catch (error) {
        if (status(error) === 412 || status(error) === 404) lease.abort();
      }
    };
    await beat();
    const timer = setInterval(() => void beat(), Math.max(500, (leaseSeconds * 1000) / 3));
    try {
      const tool = toolsFor(item.data.id).get(call.tool);
      let content: unknown;
      let isError = false;
      if (!tool) {
        content = `This worker has no tool "${call.tool}".`;
        isError = true;
      } else {
        try {
          const input = JSON.parse(call.input) as unknown;
          content = await tool.run(tool.parse ? tool.parse(input) : input, { signal: lease.signal });
        } catch (error) {
          content = `Error: ${error instanceof Error ? error.message : String(error)}`;
          isError = true;
        }
      }
      if (lease.signal.aborted) {
        line(`${call.tool} (${call.id}): lease lost; the result is not sent`);
        return false;
      }
      await client.beta.sessions.events.send(item.data.id, { events: [{ type: 'user.tool_result', tool_use_id: call.id, content: textBlocks(content), is_error: isError }] });
      line(`${call.tool} (${call.id}): ${isError ? 'error' : 'ok'}`);
      return true;
    } catch (error) {
      line(`${call.tool} (${call.id}): result refused: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    } finally {
      clearInterval(timer);
      await work.stop(item.id, { environment_id: environmentId, force: true }).catch(() => undefined);
    }
  };

  line(`serving ${environmentId} in ${workdir} as ${workerId}`);
  try {
    while (!stop.signal.aborted) {
      let item: Work | null;
      try {
        item = await work.poll(environmentId, { block_ms: 999, 'Anthropic-Worker-ID': workerId }, { signal: stop.signal });
      } catch (error) {
        if (stop.signal.aborted) break;
        const code = status(error);
        if (code !== undefined && code >= 400 && code < 500 && code !== 408 && code !== 429) throw new CliError(`polling ${environmentId}: ${error instanceof Error ? error.message : String(error)}`, code === 401 ? EXIT.unauthorized : EXIT.error);
        await new Promise((r) => setTimeout(r, 1000));
        continue;
      }
      if (!item) continue;
      try {
        await work.ack(item.id, { environment_id: environmentId });
      } catch (error) {
        // Acknowledged by another worker, or the run stopped waiting: not ours to run.
        if (status(error) === 409) continue;
        throw error;
      }
      await serve(item);
      if (options.once) break;
    }
  } finally {
    for (const tools of toolsBySession.values()) for (const tool of tools.values()) await Promise.resolve(tool.close?.()).catch(() => undefined);
  }
  return EXIT.ok;
}
