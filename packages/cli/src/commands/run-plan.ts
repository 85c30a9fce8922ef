import { readFile } from 'node:fs/promises';
import { parsePlan, planFormatOf } from '@zero/agent/plan';
import { connect } from '../connect';
import { CliError, EXIT } from '../exit';
import { oneShot } from './agent';

/**
 * `zero run --plan task.yaml|json|md`: the plan is checked here (a malformed
 * one is refused naming the field and the line, before anything is sent),
 * then sent as the chat's `plan`; the server turns it into the message.
 */
export async function runPlanCommand(project: string | undefined, options: { plan: string; agent?: string; json?: boolean; jsonl?: boolean; profile?: string }): Promise<number> {
  const format = planFormatOf(options.plan);
  if (!format) throw new CliError(`${options.plan}: a plan file ends in .yaml, .yml, .json or .md`, EXIT.usage);
  const text = await readFile(options.plan, 'utf8').catch((error: NodeJS.ErrnoException) => {
    throw new CliError(`${options.plan}: ${error.code === 'ENOENT' ? 'no such file' : error.message}`, EXIT.usage);
  });
  const parsed = parsePlan(text, format);
  if (!parsed.ok) {
    const { field, line, message } = parsed.error;
    throw new CliError(`${options.plan}${line ? `:${line}` : ''}: ${field}: ${message}`, EXIT.usage);
  }
  const connection = await connect(options.profile, { embedded: true });
  try {
    return await oneShot(connection, { plan: parsed.plan, ...(options.agent ? { agent_id: options.agent } : {}), ...(project ? { project_id: project } : {}) }, options);
  } finally {
    await connection.close?.();
  }
}
