import { AbstractChat, DefaultChatTransport, type ChatInit, type ChatState, type ChatStatus, type UIMessage } from 'ai';

/** The state `useChat` keeps in React, kept in a plain object: the AI SDK's own chat logic runs unchanged. */
class PlainChatState implements ChatState<UIMessage> {
  status: ChatStatus = 'ready';
  error: Error | undefined;
  messages: UIMessage[] = [];
  pushMessage = (m: UIMessage) => void this.messages.push(m);
  popMessage = () => void this.messages.pop();
  replaceMessage = (i: number, m: UIMessage) => void (this.messages[i] = m);
  snapshot = <T>(thing: T): T => structuredClone(thing);
}

/** The AI SDK's chat client (what `useChat` runs) against Zero's `/ui/chat`, outside React. */
export class NodeChat extends AbstractChat<UIMessage> {
  constructor(
    url: string,
    id: string,
    headers: Record<string, string>,
    body: Record<string, unknown> = {},
    init: Pick<ChatInit<UIMessage>, 'sendAutomaticallyWhen' | 'onToolCall'> = {},
  ) {
    const state = new PlainChatState();
    super({ id, state, transport: new DefaultChatTransport({ api: `${url}/api/v2/ui/chat`, headers, body }), ...init });
    this.plain = state;
  }
  /** The messages as the chat holds them, for a test to seed or tamper with (as an app's state could). */
  readonly plain: PlainChatState;
}

export const newChatId = () => `chat-${crypto.randomUUID().replace(/-/g, '').slice(0, 16)}`;
