import type { StreamEvent, ToolUsage } from '@zero/agent/wire';
import { fileDiff } from './file-diff';
import { MarkdownStream } from './markdown-stream';
import { summariseInput, summariseResult } from './summary';
import { agentPaint, colors, type Colors } from './theme';

const SPINNER = ['⠋', '⠙', '⠹', '⠸', '⠼', '⠴', '⠦', '⠧', '⠇', '⠏'];

/** A tool call as shown, kept for `/last`. */
export interface ShownCall {
  id: string;
  name: string;
  input: unknown;
  agentId?: string;
  result?: string;
  isError?: boolean;
  /** The tool's statistics when this call was counted (its `tool_usage` event). */
  usage?: ToolUsage;
}

export interface RunViewOptions {
  /** Render Markdown, colour, animate: a terminal without NO_COLOR. */
  rich: boolean;
  /** Where the answer goes. */
  out: NodeJS.WritableStream;
  /** Where tool lines and notices go when output is plain (stderr, so stdout holds only the answer). */
  side: NodeJS.WritableStream;
  /** Each agent's `color` field. */
  agentColors?: Map<string, string | undefined>;
  /** Renders a Markdown block (loaded only for rich output). */
  render?: (markdown: string) => string;
  /** `false` (`--no-stream`): a step's text is printed once the step has written all of it. */
  stream?: boolean;
}

/** A run's text as printed plainly: whether any was written, whether a step ended since, the whitespace held back. */
interface PlainText {
  written: boolean;
  stepEnded: boolean;
  space: string;
}

/**
 * Prints a run's events for a person: the answer's text as it streams
 * (Markdown rendered a block at a time on a terminal, raw otherwise), each
 * tool call as one line (a spinner, then ✓ or ✗ with a summary), delegations
 * indented under the agent that delegated (`zero → cereal`). On a terminal a
 * spinner says what the model is doing while nothing else shows (thinking,
 * writing a tool's input); printed plainly, the texts of a run's steps are
 * separated by a blank line, as the `--json` answer joins them.
 */
export class RunView {
  readonly calls: ShownCall[] = [];
  /** Each tool's latest statistics in the run (`tool_usage` events): calls so far, limit, remaining. */
  readonly toolUsage = new Map<string, ToolUsage>();
  private readonly c: Colors;
  private readonly depth = new Map<string, number>();
  private readonly agentOf = new Map<string, string>();
  private readonly markdown = new Map<string, MarkdownStream>();
  private readonly running = new Map<string, ShownCall & { depth: number }>();
  private spinnerTimer?: NodeJS.Timeout;
  private frame = 0;
  private spinnerShown = false;
  /** What the model is doing while no tool runs (rich output): shown beside the spinner. */
  private status?: string;
  private readonly plain = new Map<string, PlainText>();
  /** Text held back with `--no-stream`, by run, until its step ends. */
  private readonly held = new Map<string, { text: string; depth: number }>();
  /** The run stopped to wait (an approval, a client tool): the start of its continuation is no news. */
  private waited = false;
  /** Plain output: whether the last thing written ended a line. */
  private atLineStart = true;
  private currentAgent?: string;

  constructor(private readonly options: RunViewOptions) {
    this.c = colors(options.rich);
  }

  paint(agentId: string) {
    return agentPaint(this.c, this.options.agentColors?.get(agentId))(agentId);
  }

  handle(event: StreamEvent): void {
    const runId = 'run_id' in event ? event.run_id : undefined;
    const parent = 'parent_run_id' in event ? event.parent_run_id : undefined;
    if (runId && parent && !this.depth.has(runId)) this.depth.set(runId, (this.depth.get(parent) ?? 0) + 1);
    const depth = runId ? (this.depth.get(runId) ?? 0) : 0;
    switch (event.type) {
      case 'start':
        this.depth.set(event.run_id, 0);
        this.agentOf.set(event.run_id, event.agent_id);
        if (this.currentAgent && this.currentAgent !== event.agent_id) this.line(`${this.paint(this.currentAgent)} → ${this.paint(event.agent_id)}`, 0);
        this.currentAgent = event.agent_id;
        if (event.resumed && !this.waited) this.notice('(the run was carried on after an interruption)', 0);
        this.waited = false;
        this.setStatus('thinking…');
        break;
      case 'agent_switch':
        this.flushText();
        if (event.reason === 'delegate') {
          this.line(`${this.paint(event.from ?? '?')} → ${this.paint(event.to)}`, Math.max(depth, 1));
          if (event.run_id) this.agentOf.set(event.run_id, event.to);
        } else if (event.reason === 'return') {
          const status = event.status && event.status !== 'completed' ? ` (${event.status})` : '';
          this.line(`${this.paint(event.from ?? '?')} ↩ ${this.paint(event.to)}${status}`, Math.max(depth, 1));
        } else if (event.from && event.from !== event.to) {
          this.line(`${this.paint(event.from)} → ${this.paint(event.to)}`, 0);
          this.currentAgent = event.to;
        }
        break;
      case 'text':
        if (this.options.stream === false) this.hold(event.delta, runId ?? '', depth);
        else this.text(event.delta, runId ?? '', depth);
        this.setStatus('writing…');
        break;
      case 'thinking':
        this.setStatus('thinking…');
        break;
      case 'tool_call_delta':
        this.setStatus(`writing the input of ${event.name}…`);
        break;
      case 'tool_call': {
        this.endStep(runId ?? '');
        this.flushText();
        const call = { id: event.id, name: event.name, input: event.input, agentId: event.agent_id, depth };
        this.calls.push(call);
        this.running.set(event.id, call);
        this.spin();
        break;
      }
      case 'tool_usage': {
        const { tool, calls, limit, remaining, total_calls, total_limit } = event;
        const usage = { tool, calls, limit, remaining, total_calls, total_limit };
        this.toolUsage.set(event.tool, usage);
        // Calls are counted in the order they were made: the earliest running call of the tool not yet counted is this one.
        const call = [...this.running.values()].find((c) => c.name === event.tool && !c.usage);
        if (call) call.usage = usage;
        break;
      }
      case 'tool_result': {
        const call = this.running.get(event.id) ?? this.calls.find((c) => c.id === event.id);
        this.running.delete(event.id);
        const shown = call ?? { id: event.id, name: event.name, input: undefined, depth };
        Object.assign(shown, { result: event.content, isError: event.is_error });
        const mark = event.is_error ? this.c.red('✗') : this.c.green('✓');
        const input = shown.input === undefined ? '' : ` ${this.c.dim(summariseInput(shown.input))}`;
        // The line says so when the tool may be called no more in this run; the spinner shows every count.
        const count = 'usage' in shown && shown.usage?.remaining === 0 ? ` ${this.c.yellow(callCount(shown.usage))}` : '';
        this.toolLine(`${mark} ${this.c.bold(event.name)}${input}${count} ${this.c.dim('—')} ${summariseResult(event.content)}`, 'depth' in shown ? shown.depth : depth);
        // What a file tool changed, as a diff under its line (on a terminal; plain output keeps one line per call).
        const diff = event.is_error || !this.options.rich ? undefined : fileDiff(event.name, shown.input, this.c);
        if (diff) for (const line of diff.split('\n')) this.line(`  ${line}`, 'depth' in shown ? shown.depth : depth);
        // The results go back to the model, which thinks about its next step.
        if (this.running.size === 0) this.setStatus('thinking…');
        break;
      }
      case 'retry':
        this.endStep(runId ?? '', true);
        this.flushText();
        this.notice(`(step ${event.step} is asked again: ${event.reason})`, depth);
        break;
      case 'confirmation_required':
      case 'client_tool_call':
        this.waited = true;
        this.endStep(runId ?? '');
        this.flushText();
        this.toolLine(
          `${this.c.yellow('?')} ${this.c.bold(event.name)} ${this.c.dim(summariseInput(event.input))} ${this.c.dim(event.type === 'confirmation_required' ? '— waits for approval' : '— waits for the client')}`,
          depth,
        );
        this.running.delete(event.id);
        if (this.running.size === 0) this.stopSpinner();
        break;
      case 'approval':
        this.notice(`${event.decision === 'allow' ? 'allowed' : 'denied'}${event.by ? ` by ${event.by.name ?? event.by.id}` : ''}${event.reason ? ` (${event.reason})` : ''}`, depth);
        break;
      case 'handover':
        this.notice('(the run goes on in the background; following it)', 0);
        break;
      case 'plan_progress': {
        this.flushText();
        const mark = event.status === 'done' ? this.c.green('✓') : event.status === 'failed' ? this.c.red('✗') : this.c.yellow('▸');
        this.line(`${mark} plan step ${event.step}/${event.steps} ${event.status}: ${event.title}${event.note ? ` ${this.c.dim(`— ${event.note}`)}` : ''}`, depth);
        break;
      }
      case 'error':
        this.endStep(runId ?? '');
        this.flushText();
        this.stopSpinner();
        this.line(this.c.red(`error: ${event.code}: ${event.message}`), depth);
        break;
      case 'done':
        this.endStep(runId ?? '');
        if (event.status === 'awaiting_approval') this.waited = true;
        if (runId && depth === 0) {
          this.flushText();
          this.stopSpinner();
          if (!this.options.rich && !this.atLineStart) this.write('\n');
        }
        break;
      default:
        break;
    }
  }

  /** Ends the view: text held back is printed, the spinner is stopped. */
  finish(): void {
    for (const runId of [...this.held.keys()]) this.endStep(runId);
    this.flushText();
    this.stopSpinner();
  }

  private hold(delta: string, runId: string, depth: number) {
    const held = this.held.get(runId) ?? { text: '', depth };
    held.text += delta;
    this.held.set(runId, held);
  }

  /** A step of `runId` ended (a tool call, a wait, its end): its held text is printed, the next text is a new paragraph. */
  private endStep(runId: string, discard = false) {
    const held = this.held.get(runId);
    this.held.delete(runId);
    if (held && !discard) this.text(held.text, runId, held.depth);
    const plain = this.plain.get(runId);
    if (plain) Object.assign(plain, { stepEnded: true, space: '' });
  }

  private text(delta: string, runId: string, depth: number) {
    if (!this.options.rich) {
      // A step's trailing whitespace is held until more of its text comes: between steps a blank line stands instead.
      const plain = this.plain.get(runId) ?? { written: false, stepEnded: false, space: '' };
      this.plain.set(runId, plain);
      const text = plain.space + delta;
      const body = text.trimEnd();
      plain.space = text.slice(body.length);
      if (!body) return;
      if (plain.written && plain.stepEnded) this.write(this.atLineStart ? '\n' : '\n\n');
      const shown = plain.written && !plain.stepEnded ? body : body.trimStart();
      this.write(indentPlain(shown, depth, this.atLineStart));
      plain.written = true;
      plain.stepEnded = false;
      return;
    }
    let stream = this.markdown.get(runId);
    if (!stream) {
      const indent = '  '.repeat(depth);
      stream = new MarkdownStream(this.options.render ?? ((m) => m), (text) => this.write(indent ? text.replace(/^(?=.)/gm, indent) : text));
      this.markdown.set(runId, stream);
    }
    stream.push(delta);
  }

  private flushText() {
    for (const stream of this.markdown.values()) stream.flush();
  }

  /** Writes to the answer's stream, around the spinner. */
  private write(text: string) {
    if (!text) return;
    this.clearSpinner();
    this.options.out.write(text);
    this.atLineStart = text.endsWith('\n');
    this.drawSpinner();
  }

  /** A line of the conversation's structure (agent switches). */
  private line(text: string, depth: number) {
    const target = this.options.rich ? this.options.out : this.options.side;
    this.clearSpinner();
    target.write(`${'  '.repeat(depth)}${text}\n`);
    if (this.options.rich) this.atLineStart = true;
    this.drawSpinner();
  }

  private toolLine(text: string, depth: number) {
    this.line(text, depth);
  }

  private notice(text: string, depth: number) {
    this.line(this.c.dim(text), depth);
  }

  /** What the model is doing, beside the spinner while no tool runs (rich output only). */
  private setStatus(status: string) {
    if (!this.options.rich) return;
    this.clearSpinner();
    this.status = status;
    this.spin();
  }

  private spin() {
    if (!this.options.rich) return;
    this.drawSpinner();
    this.spinnerTimer ??= setInterval(() => {
      this.frame++;
      this.clearSpinner();
      this.drawSpinner();
    }, 80);
  }

  private drawSpinner() {
    if (!this.options.rich || !this.atLineStart) return;
    if (this.running.size === 0) {
      if (!this.status) return;
      this.options.out.write(`${this.c.cyan(SPINNER[this.frame % SPINNER.length]!)} ${this.c.dim(this.status)}`);
      this.spinnerShown = true;
      return;
    }
    const latest = [...this.running.values()].at(-1)!;
    const others = this.running.size > 1 ? this.c.dim(` (+${this.running.size - 1})`) : '';
    const count = latest.usage ? ` ${this.c.dim(callCount(latest.usage))}` : '';
    this.options.out.write(`${'  '.repeat(latest.depth)}${this.c.cyan(SPINNER[this.frame % SPINNER.length]!)} ${this.c.bold(latest.name)} ${this.c.dim(summariseInput(latest.input))}${count}${others}`);
    this.spinnerShown = true;
  }

  private clearSpinner() {
    if (!this.spinnerShown) return;
    this.options.out.write('\r\x1b[2K');
    this.spinnerShown = false;
  }

  private stopSpinner() {
    clearInterval(this.spinnerTimer);
    this.spinnerTimer = undefined;
    this.status = undefined;
    this.clearSpinner();
  }
}

/** A call's place among its tool's calls in the run: `[3/25]`, or `[25/25, limit reached]` once none remain. */
export function callCount(usage: ToolUsage): string {
  return `[${usage.calls}/${usage.limit}${usage.remaining === 0 ? ', limit reached' : ''}]`;
}

/** Plain text of a delegate, indented line by line. */
function indentPlain(delta: string, depth: number, atLineStart: boolean) {
  if (depth === 0) return delta;
  const indent = '  '.repeat(depth);
  return (atLineStart ? indent : '') + delta.replace(/\n(?=.)/g, `\n${indent}`);
}
