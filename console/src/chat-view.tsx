import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type FileUIPart } from 'ai';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { agentColour } from './agent-colour';
import { projectListSchema, sessionDetailSchema, streamEventSchema, uiDataPartSchemas, type AgentInfo as Agent, type SessionDetail, type VoiceMode as Voice } from '@zero/agent/wire';
import { api, keyFetch, type Credentials } from './api';
import type { Approvals, PendingCall, ShownDecision } from './approvals';
import { historyToMessages, userMessageId, type ConsoleMessage } from './history';
import { MessageView, RunError } from './message-view';
import { ATTACH_ACCEPT, AttachmentReader, AttachmentTray, toFilePart } from './attachments';

export interface ChatViewProps {
  creds: Credentials;
  sessionId: string;
  agents: Agent[];
  /** The stored session; undefined for a new chat that no message has created yet. */
  detail?: SessionDetail;
  /** Called when the session changed on the server (created, renamed, switched agent). */
  onChanged(): void;
  /** A run ended or waits: the sessions list's markers may have changed. */
  onListChanged(): void;
}

/** One session: its history, streaming answers through `useChat`, and other members' runs as they happen. */
export function ChatView({ creds, sessionId, agents, detail, onChanged, onListChanged }: ChatViewProps) {
  const [agentId, setAgentId] = useState(detail?.session.agent_id ?? agents.find((a) => a.id === 'zero')?.id ?? agents[0]?.id ?? '');
  const [projectId, setProjectId] = useState(detail?.session.project_id ?? '');
  const [voice, setVoice] = useState<Voice | ''>(detail?.session.voice_mode ?? '');
  const [input, setInput] = useState('');
  // Images and PDFs picked, pasted or dropped, sent with the next message.
  const [files, setFiles] = useState<FileUIPart[]>([]);
  const [notice, setNotice] = useState<string>();
  /** The projects a new session may be bound to, offered as the Project box's suggestions. */
  const [projectIds, setProjectIds] = useState<string[]>([]);
  useEffect(() => {
    if (detail) return;
    api(creds, 'GET', '/projects', undefined, projectListSchema).then(
      ({ projects }) => setProjectIds(projects.map((p) => p.id)),
      () => undefined,
    );
  }, []);
  const options = useRef({ agentId, projectId, voice, created: Boolean(detail) });
  options.current = { agentId, projectId, voice, created: options.current.created };
  const pendingSync = useRef(false);
  const [pending, setPending] = useState<ReadonlyMap<string, PendingCall>>(() => pendingOf(detail));
  const pendingNow = useRef(pending);
  pendingNow.current = pending;
  const [decided, setDecided] = useState<ReadonlyMap<string, ShownDecision>>(new Map());
  /** Runs that waited for approvals: when one ends, nobody streamed its rest, so the history is read again. */
  const waited = useRef(new Set<string>(detail?.awaiting_approval ? [detail.awaiting_approval.run_id] : []));
  // Each read of the session is the server's word on what waits (the events after it, below, carry the changes since):
  // a first message that made the session and then waited for approval shows its calls at once.
  const shownDetail = useRef(detail);
  useEffect(() => {
    if (!detail || detail === shownDetail.current) return;
    shownDetail.current = detail;
    if (detail.awaiting_approval) waited.current.add(detail.awaiting_approval.run_id);
    pendingNow.current = pendingOf(detail);
    setPending(pendingNow.current);
  }, [detail]);

  const transport = useMemo(
    () =>
      new DefaultChatTransport<ConsoleMessage>({
        api: `${creds.baseUrl}/api/v2/ui/chat`,
        headers: { authorization: `Bearer ${creds.key}` },
        fetch: keyFetch,
        // The session's history is on the server: send only the new message, and the options for a new session.
        prepareSendMessagesRequest: ({ id, messages, trigger, messageId }) => {
          const o = options.current;
          return {
            body: {
              id,
              trigger,
              messageId,
              messages: messages.slice(-1),
              ...(o.created ? {} : { agent_id: o.agentId || undefined, project_id: o.projectId.trim() || undefined, voice_mode: o.voice || undefined }),
            },
          };
        },
      }),
    [creds],
  );

  const chat = useChat<ConsoleMessage>({
    id: sessionId,
    messages: detail ? historyToMessages(detail) : [],
    transport,
    dataPartSchemas: uiDataPartSchemas,
    onFinish: () => {
      if (!options.current.created) {
        options.current.created = true;
        onChanged();
      } else onListChanged();
      if (pendingSync.current) void sync();
    },
  });
  const { messages, status, setMessages, resumeStream, error } = chat;
  const listChanged = useRef(onListChanged);
  listChanged.current = onListChanged;
  const state = useRef({ messages, status });
  state.current = { messages, status };

  /** Replaces what is shown with the server's history, then attaches to a run in progress. */
  async function sync() {
    pendingSync.current = false;
    const fresh = await api(creds, 'GET', `/sessions/${sessionId}`, undefined, sessionDetailSchema);
    setMessages(historyToMessages(fresh));
    setPending(pendingOf(fresh));
    if (fresh.active_run_id) void resumeStream();
  }

  // A run already in progress when the page opened: re-attach to it.
  useEffect(() => {
    if (detail?.active_run_id) void resumeStream();
  }, []);

  // Other members' messages arrive on the session's events; their answers stream through useChat's resume.
  useEffect(() => {
    if (!detail) return;
    const url = new URL(`${creds.baseUrl}/api/v2/sessions/${sessionId}/events`, location.href);
    url.searchParams.set('access_token', creds.key);
    url.searchParams.set('after', detail.last_event_id);
    const source = new EventSource(url);
    source.onmessage = (e) => {
      const parsed = streamEventSchema.safeParse(JSON.parse(e.data));
      if (!parsed.success || !('run_id' in parsed.data) || !parsed.data.run_id) return;
      const event = parsed.data;
      const { messages: shown, status: now } = state.current;
      // A run ended or began to wait: the list's markers and order follow.
      if (event.type === 'done') listChanged.current();
      if (event.type === 'confirmation_required') {
        if (event.run_id) waited.current.add(event.run_id);
        pendingNow.current = new Map(pendingNow.current).set(event.id, { toolCallId: event.id, name: event.name });
        setPending(pendingNow.current);
        return;
      }
      if (event.type === 'approval') {
        // Another member's decision shows at once, for everyone.
        const after = new Map(pendingNow.current);
        after.delete(event.id);
        pendingNow.current = after;
        setPending(after);
        setDecided((before) => new Map(before).set(event.id, { decision: event.decision, message: event.message, by: event.by, reason: event.reason }));
        // The last decision sends the run on in the background: watch it (if it has already ended, its `done` reads the history).
        if (after.size === 0 && now !== 'submitted' && now !== 'streaming') setTimeout(() => void resumeStream(), 100);
        return;
      }
      if (event.type === 'done' && event.status === 'awaiting_approval') {
        waited.current.add(event.run_id);
        return;
      }
      if (event.type === 'done' && waited.current.delete(event.run_id)) {
        // The resumed run went on in the background: take its ending from the history.
        if (now !== 'submitted' && now !== 'streaming') void sync();
        else pendingSync.current = true;
        return;
      }
      if (event.type === 'done') {
        // A run we never saw streaming (its start raced our resume): take it from the history.
        if (!shown.some((m) => m.id === event.run_id) && now !== 'submitted' && now !== 'streaming') void sync();
        return;
      }
      if (event.type !== 'message') return;
      if (shown.some((m) => m.id === event.run_id || m.id === userMessageId(event.run_id))) return;
      if (now === 'submitted' || now === 'streaming') {
        // Our own message coming back, or someone else's queued behind our run.
        const lastOwn = shown.findLast((m) => m.role === 'user');
        const ownText = lastOwn?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
        if (ownText?.trim() !== event.text.trim()) pendingSync.current = true;
        return;
      }
      setMessages([...shown, { id: userMessageId(event.run_id), role: 'user', parts: [{ type: 'text', text: event.text }], metadata: { author: event.author } }]);
      void resumeStream();
    };
    return () => source.close();
  }, [creds, sessionId, detail, setMessages, resumeStream]);

  const list = useRef<HTMLDivElement>(null);
  useEffect(() => {
    // Only the messages scroll (scrollIntoView would scroll the page too, clipping the top bar and the first author).
    const box = list.current;
    if (box) box.scrollTop = box.scrollHeight;
  }, [messages, error]);

  const busy = status === 'submitted' || status === 'streaming';
  const spent = sessionUsage(messages);
  const busyNow = useRef(busy);
  busyNow.current = busy;
  // Esc stops the answer being written, wherever the focus is (a dialog's own Esc is its to handle).
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !e.defaultPrevented && busyNow.current) void cancel();
    };
    addEventListener('keydown', onKey);
    return () => removeEventListener('keydown', onKey);
  }, []);
  const canWrite = !detail || detail.role !== 'viewer';
  const approvals: Approvals = {
    pending,
    decided,
    canDecide: canWrite,
    decide: async (toolCallId, decision, message) => {
      try {
        await api(creds, 'POST', `/sessions/${sessionId}/approvals/${encodeURIComponent(toolCallId)}`, { decision, ...(message ? { message } : {}) });
      } catch (err) {
        setNotice((err as Error).message);
      }
    },
  };

  async function send(e: FormEvent) {
    e.preventDefault();
    const text = input.trim();
    if (!text && !files.length) return;
    const attached = files;
    setInput('');
    setFiles([]);
    await chat.sendMessage(attached.length ? { text, files: attached } : { text });
  }

  /** A stored message's attachment, read with the key (an <img> cannot send it). */
  const readAttachment = useMemo(
    () => async (path: string) => {
      const response = await keyFetch(`${creds.baseUrl}/api/v2${path}`, { headers: { authorization: `Bearer ${creds.key}` } });
      if (!response.ok) throw new Error(`${path} answered ${response.status}`);
      return response.blob();
    },
    [creds],
  );

  /** Adds picked, pasted or dropped files to the message; one that cannot be sent is said why, the others are added. */
  async function attach(list: FileList | readonly File[]) {
    const parts = await Promise.all([...list].map(toFilePart));
    const refused = parts.flatMap((p) => ('refused' in p ? [p.refused] : []));
    setNotice(refused.length ? refused.join('; ') : undefined);
    setFiles((current) => [...current, ...parts.filter((p): p is FileUIPart => !('refused' in p))]);
  }

  /** An agent's colour and domain by its id; none: the session's agent. */
  function agentLook(id: string | undefined): { colour?: string; domain?: string } {
    const agent = agents.find((a) => a.id === (id ?? agentId));
    return { colour: agentColour(agent), domain: agent?.domain };
  }

  /** An agent's name by its id; none: the session's agent. */
  function agentName(id: string | undefined): string {
    const agent = agents.find((a) => a.id === (id ?? agentId));
    return agent?.name || id || agentId || 'Agent';
  }

  /** Sends the last message again, after a failed answer. */
  function retry() {
    const last = messages.findLast((m) => m.role === 'user');
    const text = last?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
    if (text) void chat.sendMessage({ text });
  }

  async function cancel() {
    try {
      await api(creds, 'POST', `/sessions/${sessionId}/cancel`);
    } catch (err) {
      setNotice((err as Error).message);
    }
  }

  async function switchAgent(next: string) {
    setAgentId(next);
    if (!options.current.created) return;
    try {
      await api(creds, 'PATCH', `/sessions/${sessionId}`, { agent_id: next });
      onChanged();
    } catch (err) {
      setNotice((err as Error).message);
    }
  }

  async function switchVoice(next: Voice | '') {
    setVoice(next);
    if (!options.current.created || !next) return;
    try {
      await api(creds, 'PATCH', `/sessions/${sessionId}`, { voice_mode: next });
    } catch (err) {
      setNotice((err as Error).message);
    }
  }

  return (
    <AttachmentReader.Provider value={readAttachment}>
      <section className="chat">
        <div className="settings">
          <label>
            Agent
            <select data-testid="agent" value={agentId} onChange={(e) => void switchAgent(e.target.value)} disabled={!canWrite}>
              {agents.map((a) => (
                <option key={a.id} value={a.id} title={a.description}>
                  {agentLabel(a, agents)}
                </option>
              ))}
            </select>
          </label>
          <label>
            Project
            <input
              data-testid="project"
              list="project-options"
              value={projectId}
              placeholder="owner/repo"
              onChange={(e) => setProjectId(e.target.value)}
              disabled={options.current.created}
              title={options.current.created ? 'A session keeps the project it started with' : 'Bind the session to a project'}
            />
          </label>
          <datalist id="project-options">
            {projectIds.map((id) => (
              <option key={id} value={id} />
            ))}
          </datalist>
          <label>
            Voice
            <select data-testid="voice" value={voice} onChange={(e) => void switchVoice(e.target.value as Voice | '')} disabled={!canWrite}>
              <option value="">agent default</option>
              <option value="full">full</option>
              <option value="minimal">minimal</option>
              <option value="neutral">neutral</option>
            </select>
          </label>
          {spent.runs ? (
            <span className="session-usage" data-testid="session-usage" title="What this session's answers used, as shown here">
              {spent.tokens.toLocaleString()} tokens · ${spent.cost.toFixed(4)}
            </span>
          ) : null}
        </div>

        {pending.size ? (
          <div className="awaiting" data-testid="awaiting-approval">
            <span className="badge">awaiting approval</span> {[...pending.values()].map((p) => p.name).join(', ')}
          </div>
        ) : null}
        <div className="messages" data-testid="messages" ref={list} aria-live="polite" aria-busy={busy}>
          {messages.length === 0 ? (
            <div className="empty start" data-testid="chat-empty">
              <p>
                <strong>Ask {agentName(undefined)} anything.</strong> The first message starts the session, listed under Sessions by its first words.
              </p>
              <p>Enter sends, Shift+Enter starts a new line, Esc stops an answer.</p>
            </div>
          ) : null}
          {messages.map((m, i) => {
            const last = i === messages.length - 1;
            return (
              <MessageView
                key={m.id}
                message={m}
                approvals={approvals}
                agentName={agentName}
                agentLook={agentLook}
                onRetry={last && canWrite && !busy ? retry : undefined}
                // A run that failed while it streamed: its answer shows the error (until the history has it).
                streamError={last && error && m.role === 'assistant' && !m.metadata?.error ? streamError(error) : undefined}
              />
            );
          })}
          {/* A request refused before any answer began. */}
          {error && messages.at(-1)?.role !== 'assistant' ? (
            <article className="message message-assistant">
              <RunError error={streamError(error)} agent={agentName(undefined)} onRetry={canWrite && !busy ? retry : undefined} />
            </article>
          ) : null}
          {notice ? (
            <div className="error" role="alert">
              {notice}
            </div>
          ) : null}
        </div>

        {canWrite ? (
          <form
            className="composer"
            data-testid="composer-form"
            onSubmit={(e) => void send(e)}
            onDragOver={(e) => {
              if (e.dataTransfer.types.includes('Files')) e.preventDefault();
            }}
            onDrop={(e) => {
              if (!e.dataTransfer.files.length) return;
              e.preventDefault();
              void attach(e.dataTransfer.files);
            }}
          >
            <AttachmentTray files={files} onRemove={(i) => setFiles((current) => current.filter((_, j) => j !== i))} />
            <label className="attach secondary" title="Attach images or PDFs">
              Attach
              <input
                type="file"
                data-testid="attach-input"
                accept={ATTACH_ACCEPT}
                multiple
                hidden
                onChange={(e) => {
                  if (e.target.files?.length) void attach(e.target.files);
                  e.target.value = '';
                }}
              />
            </label>
            <textarea
              data-testid="composer"
              aria-label={`Message to ${agentName(undefined)}`}
              value={input}
              placeholder="Message"
              rows={2}
              onChange={(e) => setInput(e.target.value)}
              onPaste={(e) => {
                if (!e.clipboardData.files.length) return;
                e.preventDefault();
                void attach(e.clipboardData.files);
              }}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) {
                  e.preventDefault();
                  e.currentTarget.form?.requestSubmit();
                }
              }}
            />
            {busy ? (
              <button type="button" className="secondary" data-testid="cancel" onClick={() => void cancel()} title="Stop the answer (Esc)">
                Stop
              </button>
            ) : null}
            <button type="submit" data-testid="send" disabled={!input.trim() && !files.length}>
              Send
            </button>
          </form>
        ) : (
          <p className="empty">You are a viewer of this session.</p>
        )}
      </section>
    </AttachmentReader.Provider>
  );
}

/** An agent as the selector names it: its name, and its id where another agent has the same name (agents made through /v1 often do). */
export function agentLabel(agent: Agent, agents: readonly Agent[]): string {
  const name = agent.name || agent.id;
  const twins = agents.filter((other) => (other.name || other.id) === name).length;
  if (twins < 2 || name === agent.id) return name;
  const version = /^(.+)@(\d+)$/.exec(agent.id);
  return version ? `${name} (${version[1]} v${version[2]})` : `${name} (${agent.id})`;
}

/** What the session's answers used: each finished answer's tokens and cost (a delegate's are in its caller's). */
function sessionUsage(messages: ConsoleMessage[]): { runs: number; tokens: number; cost: number } {
  let runs = 0;
  let tokens = 0;
  let cost = 0;
  for (const m of messages) {
    const usage = m.metadata?.usage;
    if (m.role !== 'assistant' || !usage) continue;
    runs += 1;
    tokens += usage.input_tokens + usage.output_tokens;
    cost += usage.cost_usd;
  }
  return { runs, tokens, cost };
}

/** The calls the session's run waits on, as the server last said. */
function pendingOf(detail: SessionDetail | undefined): Map<string, PendingCall> {
  return new Map(detail?.awaiting_approval?.pending.map((p) => [p.tool_call_id, { toolCallId: p.tool_call_id, name: p.name }]) ?? []);
}

/**
 * What useChat's error holds: a refused request's body (Zero's JSON error), or
 * the stream's `error` chunk, `<message> (<code>)`.
 */
function streamError(error: Error): { code: string; message: string } {
  try {
    const { code, message } = (JSON.parse(error.message) as { error: { code: string; message: string } }).error;
    if (typeof message === 'string') return { code: String(code), message };
  } catch {
    // Not JSON: the stream's own error.
  }
  const coded = /^([\s\S]*) \(([a-z_]+)\)$/.exec(error.message);
  return coded ? { message: coded[1]!, code: coded[2]! } : { message: error.message, code: 'error' };
}
