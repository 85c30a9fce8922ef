import type { HistoryRecord } from '@zero/agent/wire';
import { connect } from '../connect';
import { RunView } from '../render/run-view';
import { colors, richOutput } from '../render/theme';
import { table } from '../table';
import { agentColorMap } from './agent';

/** `zero sessions`: newest first. */
export async function listSessions(profile: string | undefined, options: { limit: string; json?: boolean }): Promise<number> {
  const { client } = await connect(profile);
  const page = await client.listSessions({ limit: Math.min(Math.max(Number(options.limit) || 20, 1), 100) });
  if (options.json) {
    process.stdout.write(`${JSON.stringify(page, null, 2)}\n`);
    return 0;
  }
  if (page.sessions.length === 0) process.stderr.write('no sessions yet\n');
  else
    process.stdout.write(
      `${table([['SESSION', 'AGENT', 'PROJECT', 'ROLE', 'UPDATED', 'TITLE'], ...page.sessions.map((s) => [s.session_id, s.agent_id, s.project_id ?? '-', s.role, s.updated_at.slice(0, 16).replace('T', ' '), s.title])])}\n`,
    );
  return 0;
}

/** `zero sessions show <id>`: settings, members, what waits, and the conversation. */
export async function showSession(profile: string | undefined, id: string, options: { json?: boolean }): Promise<number> {
  const { client } = await connect(profile);
  const detail = await client.getSession(id);
  if (options.json) {
    process.stdout.write(`${JSON.stringify(detail, null, 2)}\n`);
    return 0;
  }
  const c = colors(richOutput());
  const s = detail.session;
  const lines = [
    `${c.bold(s.title)}  ${c.dim(s.session_id)}`,
    `agent ${s.agent_id}${s.project_id ? `, project ${s.project_id}` : ''}, your role ${detail.role}${detail.active_run_id ? `, running ${detail.active_run_id}` : ''}`,
    `members: ${detail.members.map((m) => `${m.name ?? m.user_id} (${m.role})`).join(', ')}`,
  ];
  for (const p of detail.awaiting_approval?.pending ?? []) lines.push(c.yellow(`waiting: ${p.name} ${p.tool_call_id} (zero approve ${s.session_id} ${p.tool_call_id})`));
  lines.push('');
  for (const record of detail.history) {
    const line = describeRecord(record);
    if (line) lines.push(line);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

function describeRecord(record: HistoryRecord): string | undefined {
  switch (record.kind) {
    case 'user_message':
      return `> ${record.text}`;
    case 'assistant': {
      const text = record.content.filter((b) => b.type === 'text').map((b) => String((b as { text?: unknown }).text ?? '')).join('');
      const calls = record.content.filter((b) => b.type === 'tool_use').map((b) => `[${String((b as { name?: unknown }).name)}]`);
      return [`${record.agent_id}: ${text.trim()}`, ...calls].filter((l) => l.trim()).join(' ');
    }
    case 'run_end':
      return `(${record.status}, $${record.usage.cost_usd.toFixed(4)})\n`;
    default:
      return undefined;
  }
}

/** `zero sessions watch <id>`: the session's events live, from now, until Ctrl+C. */
export async function watchSession(profile: string | undefined, id: string, options: { jsonl?: boolean }): Promise<number> {
  const connection = await connect(profile);
  const { client } = connection;
  const detail = await client.getSession(id);
  const rich = !options.jsonl && richOutput();
  const render = rich ? await (await import('../render/markdown')).loadMarkdownRenderer() : undefined;
  const view = options.jsonl ? undefined : new RunView({ rich, out: process.stdout, side: process.stderr, agentColors: rich ? await agentColorMap(connection) : undefined, render });
  const controller = new AbortController();
  process.once('SIGINT', () => controller.abort());
  process.stderr.write(`watching ${detail.session.title} (${id}); Ctrl+C to stop\n`);
  try {
    for await (const { id: eventId, event } of client.watch(id, detail.last_event_id, { signal: controller.signal })) {
      if (options.jsonl) process.stdout.write(`${JSON.stringify({ ...event, ...(eventId ? { event_id: eventId } : {}) })}\n`);
      else if (event.type === 'message') process.stdout.write(`> ${event.author?.name ?? event.author?.id ?? ''}: ${event.text}\n`);
      else view!.handle(event);
    }
  } catch (error) {
    if (!controller.signal.aborted) throw error;
  }
  view?.finish();
  return 0;
}

/** `zero sessions share <id> <user> --role editor`. */
export async function shareSession(profile: string | undefined, id: string, user: string, options: { role: 'viewer' | 'editor' | 'owner'; name?: string }): Promise<number> {
  const { client } = await connect(profile);
  const { member } = await client.share(id, user, options.role, options.name);
  process.stderr.write(`${member.user_id} is ${member.role} of ${id}\n`);
  return 0;
}
