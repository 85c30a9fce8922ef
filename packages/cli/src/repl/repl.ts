import { createInterface, type Interface } from 'node:readline/promises';
import type { ToolUsage, VoiceMode } from '@zero/agent/wire';
import { voiceModeSchema } from '@zero/agent/wire';
import { askApproval } from '../approvals';
import { historyPath } from '../config';
import { connect, type Connection } from '../connect';
import { CliError, EXIT, explain } from '../exit';
import { RunView, type ShownCall } from '../render/run-view';
import { agentPaint, colors, richOutput } from '../render/theme';
import { runTurn } from '../turn';
import { agentColorMap } from '../commands/agent';
import { promptAttachments } from '../attachments';
import { replCompleter } from './completion';
import { loadHistory, saveHistoryEntry } from './history';
import { formatStatus, sessionStatus } from './status-line';

export interface ReplOptions {
  project?: string;
  agent?: string;
  voice?: VoiceMode;
  session?: string;
  profile?: string;
  /** `false` (`--no-stream`): each answer is printed once complete. */
  stream?: boolean;
}

const HELP = `  /agent <id>      talk to another agent (the session keeps its history)
  /voice <mode>    full, minimal or neutral
  /project <o/r>   a new session bound to a project
  /session         this session's id; /session new; /session <id> to resume one
  /cancel          stop the running run (or Ctrl+C)
  /usage           tokens and cost of this session
  /status          agent, model, context used and cost (shown after each answer)
  /fork            fork the session at its latest record and go on in the fork
  /rewind [seq]    undo what runs wrote after a history record (no seq: pick one)
  /last            the last tool call's input and result
  /tools           the last run's calls of each tool, its limit and what remains
  /help, /exit     this help; leave (or Ctrl+D, or Ctrl+C twice)
  A line ending with \\ (or Alt+Enter) continues on the next line.
  Tab completes /commands and @paths (files here and in the session's project).`;

/** What Tab completes after `/`. */
const COMMANDS = ['/agent', '/voice', '/project', '/session', '/cancel', '/usage', '/status', '/fork', '/rewind', '/last', '/tools', '/help', '/exit', '/quit'];

/** `zero agent` without a message: a conversation in the terminal. */
export async function startRepl(options: ReplOptions): Promise<number> {
  if (!process.stdout.isTTY && !process.stdin.isTTY) throw new CliError('the REPL needs a terminal; pass a message with -q or stdin', EXIT.usage);
  const connection = await connect(options.profile, { embedded: true });
  try {
    return await new Repl(connection, options).run();
  } finally {
    await connection.close?.();
  }
}

class Repl {
  private readonly rich = richOutput();
  private readonly c = colors(this.rich);
  private sessionId?: string;
  private agentId?: string;
  private voice?: VoiceMode;
  private project?: string;
  private agentColors = new Map<string, string | undefined>();
  private render?: (markdown: string) => string;
  private lastCalls: ShownCall[] = [];
  private lastToolUsage: ToolUsage[] = [];
  private running?: { sessionId?: string; cancelled: boolean };
  private asking = false;
  private lastInterrupt = 0;
  private rl!: Interface;
  private projectFiles?: { project: string; paths: Promise<readonly string[]> };
  private readonly typed: string[] = [];
  private lineWaiter?: (line: string) => void;

  constructor(
    private readonly connection: Connection,
    private readonly options: ReplOptions,
  ) {
    this.sessionId = options.session;
    this.agentId = options.agent;
    this.voice = options.voice;
    this.project = options.project;
  }

  private get client() {
    return this.connection.client;
  }

  async run(): Promise<number> {
    const history = await loadHistory(historyPath());
    [this.agentColors, this.render] = await Promise.all([
      agentColorMap(this.connection),
      this.rich ? import('../render/markdown').then((m) => m.loadMarkdownRenderer()) : Promise.resolve(undefined),
    ]);
    if (this.sessionId) await this.resume(this.sessionId);
    this.rl = createInterface({
      input: process.stdin,
      output: process.stdout,
      history,
      historySize: 1000,
      removeHistoryDuplicates: true,
      terminal: !!process.stdin.isTTY,
      completer: replCompleter({ commands: COMMANDS, projectPaths: () => this.projectPaths() }),
    });
    // Alt+Enter continues the input on a new line, as a trailing backslash does (readline itself ignores it).
    process.stdin.on('keypress', (_text: string, key?: { name?: string; meta?: boolean }) => {
      if (!key?.meta || (key.name !== 'return' && key.name !== 'enter') || this.running) return;
      this.rl.write('\\');
      this.rl.write(null, { name: 'return' });
    });
    this.rl.on('SIGINT', () => this.interrupt());
    this.rl.on('line', (line) => this.takeLine(line));
    const closed = new Promise<null>((resolve) => this.rl.once('close', () => resolve(null)));
    this.say(this.c.dim(`Zero at ${this.connection.target.url}. /help for commands, Ctrl+D to leave.`));
    while (true) {
      const input = await Promise.race([this.readInput(), closed]);
      if (input === null) break;
      if (!input.trim()) continue;
      void saveHistoryEntry(historyPath(), input);
      try {
        if (input.startsWith('/')) {
          if ((await this.command(input.trim())) === 'exit') break;
        } else await this.send(input);
      } catch (error) {
        const { message } = explain(error, this.connection.target.url);
        this.say(this.c.red(`error: ${message}`));
      }
    }
    this.rl.close();
    process.stdout.write('\n');
    return EXIT.ok;
  }

  private prompt(continuation = false) {
    const agent = this.agentId ?? 'zero';
    const where = this.project ? this.c.dim(` ${this.project}`) : '';
    return continuation ? this.c.dim('… ') : `${agentPaint(this.c, this.agentColors.get(agent))(agent)}${where} ${this.c.dim('›')} `;
  }

  /** One input: a line, or several when each but the last ends with a backslash. */
  private async readInput(): Promise<string> {
    const parts: string[] = [];
    this.rl.setPrompt(this.prompt());
    this.rl.prompt();
    while (true) {
      const line = await this.nextLine();
      if (!line.endsWith('\\')) return [...parts, line].join('\n');
      parts.push(line.slice(0, -1));
      this.rl.setPrompt(this.prompt(true));
      this.rl.prompt();
    }
  }

  /** The next line typed at the prompt: one typed while the REPL was busy between runs (e.g. showing the status line) waits here, not lost. */
  private nextLine(): Promise<string> {
    const queued = this.typed.shift();
    if (queued !== undefined) return Promise.resolve(queued);
    return new Promise((resolve) => (this.lineWaiter = resolve));
  }

  private takeLine(line: string) {
    // During a run its own handler takes lines; during a question, readline answers it.
    if (this.running || this.asking) return;
    const waiter = this.lineWaiter;
    this.lineWaiter = undefined;
    if (waiter) waiter(line);
    else this.typed.push(line);
  }

  /** Ctrl+C: cancels the running run; at the prompt, clears the line; twice in a row, leaves. */
  private interrupt() {
    const now = Date.now();
    const twice = now - this.lastInterrupt < 2000;
    this.lastInterrupt = now;
    if (this.running && !this.running.cancelled && !twice) {
      this.running.cancelled = true;
      this.say(this.c.dim('cancelling… (Ctrl+C again to leave)'));
      if (this.running.sessionId) void this.client.cancel(this.running.sessionId).catch(() => undefined);
      return;
    }
    if (twice) {
      this.rl.close();
      process.stdout.write('\n');
      process.exit(EXIT.ok);
    }
    // At the prompt: drop what was typed.
    (this.rl as unknown as { line: string }).line = '';
    process.stdout.write(`\n${this.c.dim('(Ctrl+C again or Ctrl+D to leave)')}\n`);
    this.rl.prompt();
  }

  private say(text: string) {
    process.stdout.write(`${text}\n`);
  }

  private async send(message: string) {
    const view = new RunView({ rich: this.rich, out: process.stdout, side: process.stdout, agentColors: this.agentColors, render: this.render, stream: this.options.stream });
    this.running = { sessionId: this.sessionId, cancelled: false };
    // Lines typed during the run: /cancel stops it; anything else waits.
    const duringRun = (line: string) => {
      if (this.asking) return;
      if (line.trim() === '/cancel') this.interrupt();
      else if (line.trim()) this.say(this.c.dim('(a run is going: /cancel or Ctrl+C stops it)'));
    };
    this.rl.on('line', duringRun);
    try {
      const attachments = await promptAttachments(message);
      const result = await runTurn({
        client: this.client,
        body: {
          message,
          ...(attachments.length ? { attachments } : {}),
          ...(this.sessionId ? { session_id: this.sessionId } : { agent_id: this.agentId, project_id: this.project, voice_mode: this.voice }),
        },
        view,
        onStart: (sessionId) => {
          this.sessionId = sessionId;
          if (this.running) this.running.sessionId = sessionId;
          // A Ctrl+C before the run had an id is carried out now.
          if (this.running?.cancelled) void this.client.cancel(sessionId).catch(() => undefined);
        },
        ask: async (call) => {
          view.finish();
          this.asking = true;
          try {
            return await askApproval(this.rl, this.c, call);
          } finally {
            this.asking = false;
          }
        },
        onReconnect: () => this.say(this.c.dim('(the connection dropped; reconnecting…)')),
      });
      view.finish();
      this.lastCalls = view.calls;
      this.lastToolUsage = [...view.toolUsage.values()];
      if (result.agent_id) this.agentId = result.agent_id;
      if (result.status !== 'completed') {
        const why = result.error ? `: ${result.error.message}` : result.reason ? `: ${result.reason}` : '';
        this.say((result.status === 'cancelled' ? this.c.yellow : this.c.red)(`(${result.status}${why})`));
      }
    } finally {
      this.rl.off('line', duringRun);
      this.running = undefined;
    }
    // Once the run is over: what is typed meanwhile waits for the prompt.
    await this.status().catch(() => undefined);
  }

  private async command(input: string): Promise<'exit' | void> {
    const [name, ...rest] = input.split(/\s+/);
    const arg = rest.join(' ').trim();
    switch (name) {
      case '/exit':
      case '/quit':
        return 'exit';
      case '/help':
        return this.say(HELP);
      case '/agent':
        return this.switchAgent(arg);
      case '/voice': {
        if (!arg) return this.say(`voice: ${this.voice ?? 'the agent\u2019s default'}`);
        const voice = voiceModeSchema.safeParse(arg);
        if (!voice.success) return this.say(this.c.red(`/voice takes ${voiceModeSchema.options.join(', ')}`));
        if (this.sessionId) await this.client.updateSession(this.sessionId, { voice_mode: voice.data });
        this.voice = voice.data;
        return this.say(this.c.dim(`voice: ${voice.data}`));
      }
      case '/project':
        if (!arg) return this.say(`project: ${this.project ?? '(none)'}`);
        this.project = arg;
        this.sessionId = undefined;
        return this.say(this.c.dim(`a new session bound to ${arg} starts with your next message`));
      case '/session':
        if (!arg) return this.say(this.sessionId ? `session ${this.sessionId}` : '(no session yet: your next message starts one)');
        if (arg === 'new') {
          this.sessionId = undefined;
          return this.say(this.c.dim('a new session starts with your next message'));
        }
        return this.resume(arg);
      case '/cancel': {
        if (!this.sessionId) return this.say(this.c.dim('nothing to cancel'));
        const answer = await this.client.cancel(this.sessionId);
        return this.say(this.c.dim(answer.cancelled ? 'cancelled' : `nothing to cancel (${answer.reason ?? 'no run is active'})`));
      }
      case '/usage':
        return this.usage();
      case '/status':
        return this.status();
      case '/fork':
        return this.fork();
      case '/rewind':
        return this.rewind(arg);
      case '/last': {
        const call = this.lastCalls.at(-1);
        if (!call) return this.say(this.c.dim('no tool call yet'));
        return this.say(`${this.c.bold(call.name)} ${this.c.dim(call.id)}\ninput:\n${JSON.stringify(call.input, null, 2)}\n${call.isError ? this.c.red('error:') : 'result:'}\n${call.result ?? '(no result yet)'}`);
      }
      case '/tools':
        if (!this.lastToolUsage.length) return this.say(this.c.dim('no tool call yet'));
        return this.say(this.lastToolUsage.map((u) => `${this.c.bold(u.tool)} ${u.calls}/${u.limit} calls, ${u.remaining} remaining`).join('\n'));
      default:
        return this.say(this.c.red(`unknown command ${name}; /help lists them`));
    }
  }

  private async switchAgent(id: string) {
    if (!id) return this.say(`agents: ${[...this.agentColors.keys()].map((a) => agentPaint(this.c, this.agentColors.get(a))(a)).join(', ')}`);
    const from = this.agentId ?? 'zero';
    if (this.sessionId) await this.client.switchAgent(this.sessionId, id);
    else if (this.agentColors.size && !this.agentColors.has(id)) return this.say(this.c.red(`no agent "${id}"; /agent lists them`));
    this.agentId = id;
    this.say(`${agentPaint(this.c, this.agentColors.get(from))(from)} → ${agentPaint(this.c, this.agentColors.get(id))(id)}`);
  }

  private async resume(id: string) {
    const detail = await this.client.getSession(id);
    this.sessionId = detail.session.session_id;
    this.agentId = detail.session.agent_id;
    this.project = detail.session.project_id;
    this.voice = detail.session.voice_mode;
    const messages = detail.history.filter((r) => r.kind === 'user_message').length;
    this.say(this.c.dim(`resumed "${detail.session.title}" (${messages} messages, agent ${detail.session.agent_id})`));
    this.say(this.c.dim(formatStatus(sessionStatus(detail))));
  }

  /** The status line: agent, model, context used, cost. */
  private async status() {
    if (!this.sessionId) return this.say(this.c.dim(`${this.agentId ?? 'zero'} · no session yet`));
    this.say(this.c.dim(formatStatus(sessionStatus(await this.client.getSession(this.sessionId)))));
  }

  /** Forks the session at its latest record and goes on in the fork. */
  private async fork() {
    if (!this.sessionId) return this.say(this.c.dim('no session yet: nothing to fork'));
    const last = (await this.client.getSession(this.sessionId)).history.at(-1);
    if (!last) return this.say(this.c.dim('the session has no history yet: nothing to fork'));
    const { session } = await this.client.forkSession(this.sessionId, last.seq);
    const from = this.sessionId;
    this.sessionId = session.session_id;
    this.say(this.c.dim(`forked ${from} at record ${last.seq}: now in ${session.session_id} ("${session.title}"); /session ${from} goes back`));
  }

  /** Rewinds the files the session wrote to a history record: the one given, or one picked from the session's messages. */
  private async rewind(arg: string) {
    if (!this.sessionId) return this.say(this.c.dim('no session yet: nothing to rewind'));
    let seq = arg ? Number(arg) : NaN;
    if (!arg) {
      const { history } = await this.client.getSession(this.sessionId);
      const points = history.flatMap((record, i) =>
        record.kind === 'user_message' && !record.parent_run_id ? [{ seq: i === 0 ? 0 : history[i - 1]!.seq, text: record.text }] : [],
      );
      if (!points.length) return this.say(this.c.dim('no message yet: nothing to rewind'));
      this.say('Rewind the files to the point before which message?');
      for (const point of points) this.say(`  ${this.c.bold(String(point.seq).padStart(4))}  ${oneLine(point.text)}`);
      const answer = (await this.rl.question(this.c.dim('record (Enter: keep everything) › '))).trim();
      if (!answer) return this.say(this.c.dim('nothing rewound'));
      seq = Number(answer);
    }
    if (!Number.isInteger(seq) || seq < 0) return this.say(this.c.red(`/rewind takes a history record's number, not "${arg || seq}"`));
    const rewound = await this.client.rewindFiles(this.sessionId, seq);
    if (!rewound.files.length && !rewound.skipped.length) return this.say(this.c.dim(`nothing was written after record ${seq}`));
    for (const file of rewound.files) this.say(`${file.action === 'restored' ? this.c.green('restored') : this.c.red('deleted')} ${file.path}`);
    for (const file of rewound.skipped) this.say(this.c.yellow(`left as it is: ${file.path} (${file.reason})`));
  }

  /** The paths of the session's project, read once (Tab completion of `@` mentions). */
  private projectPaths(): Promise<readonly string[]> {
    if (!this.project) return Promise.resolve([]);
    const project = this.project;
    const known = this.projectFiles?.project === project ? this.projectFiles.paths : undefined;
    if (known) return known;
    const paths = this.client.listProjectFiles(project).then(
      (listing) => listing.files.map((f) => f.path),
      () => {
        this.projectFiles = undefined;
        return [];
      },
    );
    this.projectFiles = { project, paths };
    return paths;
  }

  private async usage() {
    if (!this.sessionId) return this.say(this.c.dim('no session yet'));
    const detail = await this.client.getSession(this.sessionId);
    const total = { input_tokens: 0, output_tokens: 0, cache_read_input_tokens: 0, cache_creation_input_tokens: 0, cost_usd: 0 };
    let runs = 0;
    // Each run's end carries its usage; a child run's is already in its parent's.
    for (const record of detail.history) {
      if (record.kind !== 'run_end' || record.parent_run_id) continue;
      runs++;
      for (const key of Object.keys(total) as (keyof typeof total)[]) total[key] += record.usage[key];
    }
    this.say(
      `${runs} runs: ${total.input_tokens} input, ${total.output_tokens} output, ${total.cache_read_input_tokens} cache read, ${total.cache_creation_input_tokens} cache write tokens; $${total.cost_usd.toFixed(4)}`,
    );
  }
}

/** A message's first line, shortened for a list. */
function oneLine(text: string): string {
  const first = text.split('\n')[0]!;
  return first.length > 70 ? `${first.slice(0, 69)}…` : first;
}
