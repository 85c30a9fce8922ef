import { relative } from 'node:path';
import { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';

/** DynamoDB requests one code path made: command, item type and the calling frames of Zero's code. */
export interface TracedPath {
  command: string;
  item: string;
  /** Zero's frames, innermost first, as `file:function`. */
  path: string[];
  count: number;
}

const root = relative('/', `${import.meta.dirname}/../..`);

/**
 * Bench-only instrumentation of every DynamoDB document client in this
 * process (Zero's stores, whatever their layout): the time spent waiting on
 * DynamoDB, and, while tracing, which code path sent each request.
 */
export class DbTrace {
  waitingMs = 0;
  private tracing = false;
  private readonly paths = new Map<string, TracedPath>();

  install(): this {
    const send = DynamoDBDocumentClient.prototype.send;
    const trace = this;
    DynamoDBDocumentClient.prototype.send = async function (this: DynamoDBDocumentClient, ...args: unknown[]) {
      if (trace.tracing) trace.record(args[0] as { constructor: { name: string }; input: CommandInput });
      const t0 = performance.now();
      try {
        return await (send as (...a: unknown[]) => Promise<unknown>).apply(this, args);
      } finally {
        trace.waitingMs += performance.now() - t0;
      }
    } as typeof send;
    return this;
  }

  start(): void {
    this.paths.clear();
    this.tracing = true;
  }

  stop(): TracedPath[] {
    this.tracing = false;
    return [...this.paths.values()];
  }

  private record(command: { constructor: { name: string }; input: CommandInput }) {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 40;
    const stack = new Error().stack ?? '';
    Error.stackTraceLimit = limit;
    const path = zeroFrames(stack).slice(0, 4);
    const name = command.constructor.name.replace(/Command$/, '');
    const item = itemOf(command.input);
    const key = `${name}|${item}|${path.join('<')}`;
    const entry = this.paths.get(key) ?? { command: name, item, path, count: 0 };
    entry.count += 1;
    this.paths.set(key, entry);
  }
}

interface CommandInput {
  Key?: { sk?: unknown };
  Item?: { sk?: unknown };
  IndexName?: string;
  ExpressionAttributeValues?: Record<string, unknown>;
}

function itemOf(input: CommandInput): string {
  const sk = input.Key?.sk ?? input.Item?.sk;
  if (typeof sk === 'string') return sk.split('#')[0]!;
  if (input.IndexName) return `index ${input.IndexName}`;
  const bound = Object.values(input.ExpressionAttributeValues ?? {}).find((v) => typeof v === 'string' && /^[A-Z]+#/.test(v) && !/^(SESSION|USER)#/.test(v));
  return typeof bound === 'string' ? bound.split('#')[0]! : 'other';
}

/** The stack's frames in Zero's own code (not dependencies, not the bench), as `file:function`. */
function zeroFrames(stack: string): string[] {
  const frames: string[] = [];
  for (const line of stack.split('\n').slice(1)) {
    const match = /at (?:async )?(?:(.+?) \()?(?:file:\/\/)?\/?([^()]+?):\d+:\d+\)?$/.exec(line.trim());
    if (!match) continue;
    const file = match[2]!;
    if (!file.startsWith(root) || file.includes('node_modules') || file.includes('/bench/')) continue;
    const fn = (match[1] ?? '<anonymous>').replace(/^(?:Object|Array)\./, '');
    frames.push(`${file.slice(root.length + 1)}:${fn}`);
  }
  return frames;
}
