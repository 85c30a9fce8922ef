import type { ContentBlockParam, MessageParam, ModelRequest } from './provider';
import { textToolsPrompt, toolResultAsText, toolUseAsText } from './text-tool-protocol';

/** A Chat Completions message, as far as Zero sends them. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string | ChatContentPart[] }
  | { role: 'assistant'; content: string | null; tool_calls?: ChatToolCall[] }
  | { role: 'tool'; tool_call_id: string; content: string };

type ChatContentPart = { type: 'text'; text: string } | { type: 'image_url'; image_url: { url: string } };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

/**
 * Zero's request (Anthropic's Messages API shapes) as a streamed Chat Completions request: the system
 * blocks as one system message, tool_use blocks as an assistant's `tool_calls`, each tool_result as a
 * `tool` message right after them, tools with an `input_schema` as functions. What the other API has
 * no place for is left out: thinking blocks, cache breakpoints, the provider's own server tools.
 * With `textTools` (a model served without tool calling), the tools are described in the system
 * message instead, and calls and results travel as text (see text-tool-protocol.ts).
 */
export function toChatCompletionsRequest(request: ModelRequest, { textTools = false }: { textTools?: boolean } = {}) {
  const system = [...request.system.map((block) => block.text), ...(textTools ? [textToolsPrompt(request.tools)] : [])].join('\n\n');
  const messages: ChatMessage[] = system ? [{ role: 'system', content: system }] : [];
  for (const message of request.messages) messages.push(...(textTools ? toTextMessages(message) : toChatMessages(message)));
  const tools = textTools ? [] : request.tools.flatMap((tool) =>
    'input_schema' in tool && tool.input_schema
      ? [{ type: 'function' as const, function: { name: tool.name, ...('description' in tool && tool.description ? { description: tool.description } : {}), parameters: tool.input_schema } }]
      : [],
  );
  return {
    model: request.model,
    messages,
    ...(tools.length ? { tools } : {}),
    max_tokens: request.maxTokens,
    stream: true,
    stream_options: { include_usage: true },
  };
}

function toChatMessages(message: MessageParam): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  const blocks = message.content;
  if (message.role === 'assistant') {
    const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('');
    const calls = blocks.flatMap((b): ChatToolCall[] =>
      b.type === 'tool_use' ? [{ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input ?? {}) } }] : [],
    );
    return [{ role: 'assistant', content: text || null, ...(calls.length ? { tool_calls: calls } : {}) }];
  }
  // Tool results answer the previous assistant message, so they come first, each as its own message.
  const results: ChatMessage[] = blocks.flatMap((b): ChatMessage[] =>
    b.type === 'tool_result' ? [{ role: 'tool', tool_call_id: b.tool_use_id, content: resultText(b) }] : [],
  );
  const parts = blocks.flatMap(userPart);
  if (parts.length === 0) return results;
  const onlyText = parts.every((p) => p.type === 'text');
  return [...results, { role: 'user', content: onlyText ? parts.map((p) => (p as { text: string }).text).join('\n\n') : parts }];
}

/** A message for a model without tool calling: calls as `<tool_call>` text in the answer, results as `<tool_result>` text in the user's turn. */
function toTextMessages(message: MessageParam): ChatMessage[] {
  if (typeof message.content === 'string') return [{ role: message.role, content: message.content }];
  const text = message.content
    .flatMap((b) => {
      if (b.type === 'text') return [b.text];
      if (b.type === 'tool_use') return [toolUseAsText(b)];
      if (b.type === 'tool_result') return [toolResultAsText(b.tool_use_id, resultText({ ...b, is_error: false }), !!b.is_error)];
      return [];
    })
    .join('\n\n');
  if (message.role === 'assistant') return [{ role: 'assistant', content: text || null }];
  const images = message.content.flatMap((b) => (b.type === 'image' ? userPart(b) : []));
  return [{ role: 'user', content: images.length ? [{ type: 'text', text }, ...images] : text }];
}

function userPart(block: ContentBlockParam): ChatContentPart[] {
  if (block.type === 'text') return [{ type: 'text', text: block.text }];
  if (block.type === 'image' && block.source.type === 'base64') return [{ type: 'image_url', image_url: { url: `data:${block.source.media_type};base64,${block.source.data}` } }];
  if (block.type === 'image' && block.source.type === 'url') return [{ type: 'image_url', image_url: { url: block.source.url } }];
  return [];
}

function resultText(block: Extract<ContentBlockParam, { type: 'tool_result' }>): string {
  const text =
    typeof block.content === 'string'
      ? block.content
      : (block.content ?? []).map((part) => (part.type === 'text' ? part.text : `[${part.type} omitted: this model reads text only]`)).join('\n');
  return block.is_error ? `Error: ${text}` : text;
}
