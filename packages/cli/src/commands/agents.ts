import { connect } from '../connect';
import { colors, richOutput, agentPaint } from '../render/theme';
import { table } from '../table';

/** `zero agents`: the catalog, and the files that could not be loaded (with the field at fault). */
export async function listAgents(profile: string | undefined, options: { json?: boolean }): Promise<number> {
  const { client } = await connect(profile);
  const list = await client.listAgents();
  if (options.json) {
    process.stdout.write(`${JSON.stringify(list, null, 2)}\n`);
    return list.errors.length ? 1 : 0;
  }
  const c = colors(richOutput());
  const rows = list.agents.map((a) => [agentPaint(c, a.color)(a.id), c.dim(a.model), a.description.length > 70 ? `${a.description.slice(0, 69)}…` : a.description]);
  if (rows.length) process.stdout.write(`${table(rows)}\n`);
  for (const agent of list.agents) for (const warning of agent.warnings) process.stdout.write(`${c.yellow('warning')} ${agent.id}: ${warning}\n`);
  for (const error of list.errors) process.stdout.write(`${c.red('error')} ${error.file}: ${error.message.startsWith(error.field) ? '' : `${error.field}: `}${error.message}\n`);
  return list.errors.length ? 1 : 0;
}
