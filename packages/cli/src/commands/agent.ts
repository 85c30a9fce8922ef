import { createInterface } from 'node:readline/promises';
import type { ChatInput } from '@zero/client';
import { voiceModeSchema, type VoiceMode } from '@zero/agent/wire';
import { askApproval } from '../approvals';
import { connect, type Connection } from '../connect';
import { CliError, EXIT, exitCodeOf } from '../exit';
import { RunView } from '../render/run-view';
import { colors, richOutput } from '../render/theme';
import { promptAttachments } from '../attachments';
import { runTurn } from '../turn';

export interface AgentOptions {
  q?: string;
  /** `-p`: the message, or `true` when given alone (the message comes from stdin). */
  print?: string | boolean;
  /** `false` with `--no-stream`: the answer is printed once complete. */
  stream?: boolean;
  json?: boolean;
  jsonl?: boolean;
  agent?: string;
  voice?: string;
  session?: string;
  profile?: string;
}

/** `zero [agent] [owner/repo]`: one message (`-p`, `-q`, stdin) and exit, or the REPL. */
export async function agentCommand(project: string | undefined, options: AgentOptions): Promise<number> {
  // `agent` is the default command: a word that is neither a command nor owner/repo is a mistyped command.
  if (project !== undefined && !project.includes('/')) throw new CliError(`unknown command "${project}" (a project is owner/repo); zero --help lists the commands`, EXIT.usage);
  const voice = parseVoice(options.voice);
  const piped = process.stdin.isTTY ? '' : await readStdin();
  const given = [typeof options.print === 'string' ? options.print : undefined, options.q];
  const message = [...given, piped.trim()].filter(Boolean).join('\n\n');
  if (!message) {
    if (options.print !== undefined || options.q !== undefined || !process.stdin.isTTY) throw new CliError('nothing to send: the message (-p, -q or stdin) is empty', EXIT.usage);
    if (options.json || options.jsonl) throw new CliError('--json and --jsonl need a message (-p, -q or stdin)', EXIT.usage);
    const { startRepl } = await import('../repl/repl');
    return startRepl({ project, agent: options.agent, voice, session: options.session, profile: options.profile, stream: options.stream });
  }
  const connection = await connect(options.profile, { embedded: true });
  try {
    const attachments = await promptAttachments(message);
    return await oneShot(connection, { message, ...(attachments.length ? { attachments } : {}), agent_id: options.agent, project_id: project, voice_mode: voice, session_id: options.session }, options);
  } finally {
    await connection.close?.();
  }
}

/** Sends one message (or plan), prints the run, and answers with the exit code of its end. */
export async function oneShot(connection: Connection, body: ChatInput, options: { json?: boolean; jsonl?: boolean; stream?: boolean }): Promise<number> {
  const { client } = connection;
  const rich = !options.json && !options.jsonl && richOutput();
  const c = colors(richOutput(process.stderr));
  const agentColors = rich ? await agentColorMap(connection) : undefined;
  const render = rich ? await (await import('../render/markdown')).loadMarkdownRenderer() : undefined;
  const view = options.json || options.jsonl ? undefined : new RunView({ rich, out: process.stdout, side: process.stderr, agentColors, render, stream: options.stream });
  // Ctrl+C once stops the run through the cancel route (what was said is kept); twice leaves at once.
  const controller = new AbortController();
  let sessionId = body.session_id;
  let interrupts = 0;
  const onInterrupt = () => {
    if (++interrupts > 1 || !sessionId) process.exit(130);
    process.stderr.write(`\n${c.dim('cancelling… (Ctrl+C again to leave)')}\n`);
    void client.cancel(sessionId).catch(() => undefined);
  };
  process.on('SIGINT', onInterrupt);
  const rl = process.stdin.isTTY && !options.json && !options.jsonl ? createInterface({ input: process.stdin, output: process.stderr }) : undefined;
  try {
    const result = await runTurn({
      client,
      body,
      view,
      signal: controller.signal,
      onStart: (id) => (sessionId = id),
      onEvent: options.jsonl ? ({ id, event }) => process.stdout.write(`${JSON.stringify({ ...event, ...(id ? { event_id: id } : {}) })}\n`) : undefined,
      ask: rl ? (call) => askApproval(rl, c, call) : undefined,
      onReconnect: () => process.stderr.write(c.dim('zero: the connection dropped; reconnecting…\n')),
    });
    view?.finish();
    if (options.json) process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    const code = exitCodeOf(result.status);
    if (code !== EXIT.ok) {
      const why = result.error ? `${result.error.code}: ${result.error.message}` : (result.reason ?? '');
      const waiting =
        result.status === 'awaiting_approval'
          ? `; decide with: ${(result.pending ?? []).map((p) => `zero approve ${result.session_id} ${p.id}`).join(', ')} (or zero deny …)`
          : '';
      process.stderr.write(`zero: the run ended with status "${result.status}"${why ? `: ${why}` : ''}${waiting}\n`);
    }
    return code;
  } finally {
    rl?.close();
    process.off('SIGINT', onInterrupt);
  }
}

/** Each agent's colour (the `color` of its file), for a terminal; none when the catalog cannot be read. */
export async function agentColorMap(connection: Connection) {
  const list = await connection.client.listAgents().catch(() => undefined);
  return new Map(list?.agents.map((a) => [a.id, a.color]) ?? []);
}

function parseVoice(voice: string | undefined): VoiceMode | undefined {
  if (voice === undefined) return undefined;
  const parsed = voiceModeSchema.safeParse(voice);
  if (!parsed.success) throw new CliError(`--voice must be one of ${voiceModeSchema.options.join(', ')}`, EXIT.usage);
  return parsed.data;
}

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
