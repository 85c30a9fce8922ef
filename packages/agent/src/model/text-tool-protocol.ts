import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import type { ContentBlockParam, ToolUnion } from './provider';

/**
 * Tool calling for a model served without it (ZAP's `<tool_call>` blocks, Agent Zero's
 * tools-in-the-prompt): the tools are described in the system prompt, the model writes
 * each call as a `<tool_call>{"name": …, "input": {…}}</tool_call>` block in its answer,
 * and each result goes back as a `<tool_result>` block in the next user message. The
 * calls parsed from an answer are ordinary `tool_use` blocks for the loop, so limits,
 * permissions and approvals apply as to any call.
 */

const OPEN = '<tool_call>';
const CLOSE = '</tool_call>';

/** What a `<tool_call>` block holds: a tool's name and its input object (`arguments`, ZAP's spelling, is taken too). */
const toolCallBlockSchema = z.looseObject({
  name: z.string({ error: 'must be the name of a tool' }).trim().min(1, 'must be the name of a tool'),
  input: z.record(z.string(), z.unknown(), { error: 'must be a JSON object' }).optional(),
  arguments: z.union([z.record(z.string(), z.unknown()), z.string()], { error: 'must be a JSON object' }).optional(),
});

/** The name a call gets when its block names no tool: no tool has it, so the call is answered with the block's problem. */
export const MALFORMED_TOOL_CALL = 'malformed_tool_call';

/** The system prompt's section that teaches the protocol, with each tool's input schema. */
export function textToolsPrompt(tools: readonly ToolUnion[]): string {
  const described = tools.flatMap((tool) =>
    'input_schema' in tool && tool.input_schema
      ? [`### ${tool.name}\n${'description' in tool && tool.description ? `${tool.description}\n` : ''}Input schema: ${JSON.stringify(tool.input_schema)}`]
      : [],
  );
  return [
    '# Calling tools',
    'You call a tool by writing, in your answer, a block of this exact form (JSON inside, one call per block):',
    `${OPEN}{"name": "<tool name>", "input": {<the input, matching the tool's schema>}}${CLOSE}`,
    'You may write several blocks in one answer. After your answer, each call is run and its result comes back to you in the next message',
    'as <tool_result id="…">…</tool_result> (with error="true" when the call failed). Do not write results yourself, and do not wrap the block in code fences.',
    'When you need no more tools, answer in plain text without any block.',
    '',
    '## Tools',
    ...described,
  ].join('\n');
}

/** A tool_use block of the history as the model wrote it. */
export function toolUseAsText(block: { name: string; input: unknown }): string {
  return `${OPEN}${JSON.stringify({ name: block.name, input: block.input ?? {} })}${CLOSE}`;
}

/** A tool result as the model reads it. */
export function toolResultAsText(id: string, text: string, isError: boolean): string {
  return `<tool_result id="${id}"${isError ? ' error="true"' : ''}>\n${text}\n</tool_result>`;
}

/** A call parsed from a block: its name and input, or the marker input the registry answers with `problem` (see tools/registry.ts). */
export interface TextToolCall {
  id: string;
  name: string;
  input: unknown;
}

/**
 * Reads an answer as it streams: `push` returns the text to show now (never any part of a
 * `<tool_call>` block, and holding back what may be the start of one), `end` what is left
 * and the calls, in order. A block that is not JSON, names no tool, has an input that is
 * not an object, or is not closed becomes a call with the marker input, so the model gets
 * an error result that says what was wrong.
 */
export class TextToolCalls {
  private buffer = '';
  private inside = false;
  private text = '';
  readonly calls: TextToolCall[] = [];

  push(delta: string): string {
    this.buffer += delta;
    let shown = '';
    for (;;) {
      if (this.inside) {
        const close = this.buffer.indexOf(CLOSE);
        if (close < 0) return this.keep(shown);
        this.calls.push(parseBlock(this.buffer.slice(0, close)));
        this.buffer = this.buffer.slice(close + CLOSE.length);
        this.inside = false;
        continue;
      }
      const open = this.buffer.indexOf(OPEN);
      if (open >= 0) {
        shown += this.buffer.slice(0, open);
        this.buffer = this.buffer.slice(open + OPEN.length);
        this.inside = true;
        continue;
      }
      // Hold back a tail that may be the start of a block.
      const held = heldTail(this.buffer);
      shown += this.buffer.slice(0, this.buffer.length - held);
      this.buffer = this.buffer.slice(this.buffer.length - held);
      return this.keep(shown);
    }
  }

  /** The answer is complete: the rest of its text (shown now), and its text and calls as a whole. */
  end(): { rest: string; text: string; calls: TextToolCall[] } {
    let rest = '';
    if (this.inside) this.calls.push(malformed(undefined, this.buffer, `the ${OPEN} block was not closed with ${CLOSE}`));
    else rest = this.buffer;
    this.buffer = '';
    this.inside = false;
    this.text += rest;
    return { rest, text: this.text.trim(), calls: this.calls };
  }

  private keep(shown: string): string {
    this.text += shown;
    return shown;
  }
}

/** How many characters at the end of `text` may be the start of `<tool_call>`. */
function heldTail(text: string): number {
  for (let n = Math.min(OPEN.length - 1, text.length); n > 0; n--) if (OPEN.startsWith(text.slice(-n))) return n;
  return 0;
}

function parseBlock(raw: string): TextToolCall {
  let json: unknown;
  try {
    json = JSON.parse(raw.trim());
  } catch {
    return malformed(undefined, raw, `the ${OPEN} block is not JSON; write {"name": "<tool>", "input": {…}}`);
  }
  const parsed = toolCallBlockSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = typeof (json as { name?: unknown })?.name === 'string' ? (json as { name: string }).name : undefined;
    return malformed(name, raw, `the ${OPEN} block's ${issue?.path.join('.') || 'content'} ${issue?.path.length ? issue.message : 'must be a JSON object with "name" and "input"'}`);
  }
  const { name, input, arguments: args } = parsed.data;
  if (input !== undefined || args === undefined) return { id: callId(), name, input: input ?? {} };
  if (typeof args !== 'string') return { id: callId(), name, input: args };
  // OpenAI's spelling: the arguments as a JSON string.
  try {
    const object = JSON.parse(args);
    if (object && typeof object === 'object' && !Array.isArray(object)) return { id: callId(), name, input: object };
  } catch {
    // answered below
  }
  return malformed(name, raw, `the ${OPEN} block's arguments must be a JSON object`);
}

/** A call the registry answers with an error result naming `problem`, whatever its name. */
function malformed(name: string | undefined, raw: string, problem: string): TextToolCall {
  return { id: callId(), name: name?.trim() || MALFORMED_TOOL_CALL, input: { __invalid_json__: raw.slice(0, 2000), __problem__: problem } };
}

const callId = () => `toolu_text_${randomUUID().replace(/-/g, '').slice(0, 20)}`;

/** The content blocks of an answer read with the protocol: its text, then its calls. */
export function textAnswerContent(text: string, calls: readonly TextToolCall[]): ContentBlockParam[] {
  return [...(text ? [{ type: 'text' as const, text }] : []), ...calls.map((call) => ({ type: 'tool_use' as const, id: call.id, name: call.name, input: call.input }))];
}
