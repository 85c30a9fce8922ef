import { createHash } from 'node:crypto';

/** Token usage as the Messages API reports it. */
export interface SimulatedUsage {
  input_tokens: number;
  cache_read_input_tokens: number;
  cache_creation_input_tokens: number;
}

/** What a real account would be billed for one request, at list prices. */
export interface Bill extends SimulatedUsage {
  model: string;
  output_tokens: number;
  usd: number;
}

export interface PromptCacheOptions {
  /** The fixed tokens-per-character rule: tokens of a block = ceil(chars / charsPerToken). */
  charsPerToken?: number;
  /** Lifetime of an entry since it was last written or read (Anthropic's default cache: 5 minutes). */
  ttlMs?: number;
  /** Shortest cacheable prefix (Sonnet and Opus: 1,024 tokens). */
  minTokens?: number;
  /** How many blocks before a breakpoint the API looks for an earlier entry (Anthropic: 20). */
  lookbackBlocks?: number;
  now?: () => number;
}

interface Block {
  text: string;
  breakpoint: boolean;
}

interface CacheableRequest {
  model: string;
  tools?: unknown[];
  system?: unknown;
  messages: { role: string; content: unknown }[];
  cache_control?: unknown;
}

/**
 * Anthropic's prompt cache, faithfully enough to count. The prompt is the
 * blocks in the API's order (tools, system, messages); a `cache_control` mark
 * on a block (or the top-level `cache_control`, which marks the last block)
 * is a breakpoint. The longest prefix ending within `lookbackBlocks` before a
 * breakpoint that was written in the last `ttlMs` is read from the cache; the
 * tokens from there to the last breakpoint are written to it; the rest is
 * plain input. Tokens are counted from each block's content with a fixed
 * characters-per-token rule, the same for every client.
 */
export class PromptCache {
  private readonly entries = new Map<string, number>();
  private readonly charsPerToken: number;
  private readonly ttlMs: number;
  private readonly minTokens: number;
  private readonly lookback: number;
  private readonly now: () => number;

  constructor(options: PromptCacheOptions = {}) {
    this.charsPerToken = options.charsPerToken ?? 4;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.minTokens = options.minTokens ?? 1024;
    this.lookback = options.lookbackBlocks ?? 20;
    this.now = options.now ?? Date.now;
  }

  clear(): void {
    this.entries.clear();
  }

  /** The fixed rule: tokens = ceil(characters / charsPerToken). */
  tokensFor(chars: number): number {
    return Math.ceil(chars / this.charsPerToken);
  }

  /** Accounts one request: which of its input tokens are read from, written to, or not in the cache. */
  account(request: CacheableRequest): SimulatedUsage {
    const blocks = promptBlocks(request);
    if (request.cache_control && blocks.length) blocks[blocks.length - 1]!.breakpoint = true;
    const now = this.now();
    // prefixTokens[i] / hashes[i]: the first i blocks.
    const prefixTokens = [0];
    const hashes = [createHash('sha256').update(request.model).digest('hex')];
    for (const block of blocks) {
      prefixTokens.push(prefixTokens.at(-1)! + this.tokensFor(block.text.length));
      hashes.push(createHash('sha256').update(hashes.at(-1)!).update('\u0000').update(block.text).digest('hex'));
    }
    const breakpoints = blocks.flatMap((block, i) => (block.breakpoint ? [i + 1] : []));
    const live = (end: number) => {
      const at = this.entries.get(hashes[end]!);
      return at !== undefined && now - at <= this.ttlMs;
    };

    let readEnd = 0;
    for (const bp of breakpoints) {
      for (let end = bp; end > Math.max(0, bp - this.lookback); end--) {
        if (end > readEnd && live(end)) {
          readEnd = end;
          break;
        }
      }
    }
    const lastBreakpoint = breakpoints.filter((bp) => prefixTokens[bp]! >= this.minTokens).at(-1) ?? 0;
    const writeEnd = Math.max(readEnd, lastBreakpoint);
    for (const bp of breakpoints) if (bp <= writeEnd && prefixTokens[bp]! >= this.minTokens) this.entries.set(hashes[bp]!, now);
    if (readEnd) this.entries.set(hashes[readEnd]!, now);

    const total = prefixTokens.at(-1)!;
    return {
      input_tokens: total - prefixTokens[writeEnd]!,
      cache_read_input_tokens: prefixTokens[readEnd]!,
      cache_creation_input_tokens: prefixTokens[writeEnd]! - prefixTokens[readEnd]!,
    };
  }
}

/** USD per million tokens at list prices; cache writes (5 minutes) at 1.25×, reads at 0.1× the input price. */
const LIST_PRICES: [RegExp, { input: number; output: number }][] = [
  [/opus-4-[01]|claude-3-opus/, { input: 15, output: 75 }],
  [/opus/, { input: 5, output: 25 }],
  [/haiku/, { input: 1, output: 5 }],
  [/sonnet/, { input: 3, output: 15 }],
];

/** The bill of one request at list prices (unknown models are priced as Sonnet). */
export function billOf(model: string, usage: SimulatedUsage & { output_tokens: number }): Bill {
  const price = LIST_PRICES.find(([pattern]) => pattern.test(model))?.[1] ?? { input: 3, output: 15 };
  const usd =
    (usage.input_tokens * price.input +
      usage.cache_creation_input_tokens * price.input * 1.25 +
      usage.cache_read_input_tokens * price.input * 0.1 +
      usage.output_tokens * price.output) /
    1_000_000;
  return { model, ...usage, usd };
}

/** The prompt as the API orders it, one entry per block, with its countable content. */
function promptBlocks(request: CacheableRequest): Block[] {
  const blocks: Block[] = [];
  for (const tool of request.tools ?? []) {
    const { cache_control, ...definition } = tool as Record<string, unknown>;
    blocks.push({ text: `tool ${canonical(definition)}`, breakpoint: !!cache_control });
  }
  const system = request.system;
  if (typeof system === 'string') blocks.push({ text: `system ${system}`, breakpoint: false });
  else if (Array.isArray(system)) for (const block of system) blocks.push(contentBlock('system', block));
  for (const message of request.messages) {
    if (typeof message.content === 'string') blocks.push({ text: `${message.role} ${message.content}`, breakpoint: false });
    else for (const block of message.content as unknown[]) blocks.push(contentBlock(message.role, block));
  }
  return blocks;
}

function contentBlock(role: string, value: unknown): Block {
  const { cache_control, ...block } = value as Record<string, unknown>;
  let text: string;
  if (block.type === 'text') text = String(block.text);
  else if (block.type === 'tool_use') text = `${String(block.name)} ${canonical(block.input)} ${String(block.id)}`;
  else if (block.type === 'tool_result') {
    const content = block.content;
    const body = typeof content === 'string' ? content : Array.isArray(content) ? content.map((c) => (c as { text?: string }).text ?? canonical(c)).join('') : '';
    text = `${String(block.tool_use_id)} ${body}${block.is_error ? ' (error)' : ''}`;
  } else text = canonical(block);
  return { text: `${role} ${String(block.type)} ${text}`, breakpoint: !!cache_control };
}

/** JSON with sorted keys, so two clients sending the same value count and hash the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === 'object' && !Array.isArray(v) ? Object.fromEntries(Object.entries(v).sort(([a], [b]) => a.localeCompare(b))) : v,
  );
}
