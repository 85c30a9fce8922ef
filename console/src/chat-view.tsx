import { useChat } from '@ai-sdk/react';
import { DefaultChatTransport, type FileUIPart } from 'ai';
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { agentColour } from './agent-colour';
import {
  EFFORT_BUDGETS,
  projectListSchema,
  sessionDetailSchema,
  sessionResponseSchema,
  streamEventSchema,
  uiDataPartSchemas,
  type AgentInfo as Agent,
  type Effort,
  type SessionDetail,
  type Usage,
  type VoiceMode as Voice,
} from '@zero/agent/wire';
import { api, keyFetch, type Credentials } from './api';
import type { Approvals, PendingCall, ShownDecision } from './approvals';
import { historyToMessages, userMessageId, type ConsoleMessage } from './history';
import { MessageView, RunError } from './message-view';
import { ATTACH_ACCEPT, AttachmentReader, AttachmentTray, toFilePart } from './attachments';
import { branchPath } from './branches';
import { sessionCost } from './session-cost';
import type { Steering } from './steering';

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
  /** The signed-in user's id: their own messages are theirs to edit. */
  userId?: string;
}

/** One session: its history, streaming answers through `useChat`, and other members' runs as they happen. */
export function ChatView({ creds, sessionId, agents, detail, onChanged, onListChanged, userId }: ChatViewProps) {
  const [agentId, setAgentId] = useState(detail?.session.agent_id ?? agents.find((a) => a.id === 'zero')?.id ?? agents[0]?.id ?? '');
  const [projectId, setProjectId] = useState(detail?.session.project_id ?? '');
  const [voice, setVoice] = useState<Voice | ''>(detail?.session.voice_mode ?? '');
  // The next message's model and effort ('': the agent's).
  const [model, setModel] = useState('');
  const [effort, setEffort] = useState<Effort | ''>('');
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
  /** The outcome rubric the next message carries (the Rubric box, collapsed until opened): a grader scores the answer against it. */
  const [rubricOpen, setRubricOpen] = useState(false);
  const [rubric, setRubric] = useState('');
  /** The rubric of the message being sent, read by the transport (set just before `sendMessage`). */
  const sendingRubric = useRef('');
  const options = useRef({ agentId, projectId, voice, model, effort, created: Boolean(detail) });
  options.current = { agentId, projectId, voice, model, effort, created: options.current.created };
  /** Every branch's records (`?branches=all`): the branch arrows page through them, the fork button names their records. */
  const [all, setAll] = useState<SessionDetail>();
  /** The version picked after a record (by the record's seq), where a person paged away from the latest. */
  const [chosen, setChosen] = useState<ReadonlyMap<number, number>>(new Map());
  /** What runs that ended used, from the session's events as they end (other members' runs too). */
  const [ended, setEnded] = useState<ReadonlyMap<string, Usage>>(new Map());
  /** Another member branched the conversation: said once, until the next branch. */
  const [branchNote, setBranchNote] = useState<string>();
  const loadBranchesNow = useRef(async () => undefined as void);
  /** An earlier version is shown (paged to with the arrows). */
  const paged = useRef(false);
  const loadBranches = () => loadBranchesNow.current();
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
              // This message's own model and effort, over the agent's.
              model: o.model || undefined,
              thinking: o.effort === '' ? undefined : o.effort === 'off' ? false : { budget_tokens: EFFORT_BUDGETS[o.effort] },
              outcome: trigger === 'submit-message' && !messageId && sendingRubric.current ? { rubric: sendingRubric.current } : undefined,
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
    onFinish: ({ message }) => {
      // A grader sent the answer back: the revision is the session's next run (started by the server), read from the history and followed.
      if (message.parts.some((p) => p.type === 'data-outcome' && p.data.result === 'needs_revision')) pendingSync.current = true;
      if (!options.current.created) {
        options.current.created = true;
        onChanged();
      } else onListChanged();
      if (pendingSync.current) void sync();
      void loadBranches();
    },
  });
  const { messages, status, setMessages, resumeStream, error } = chat;
  const listChanged = useRef(onListChanged);
  listChanged.current = onListChanged;
  const state = useRef({ messages, status });
  state.current = { messages, status };

  /** Replaces what is shown with the server's history (the latest version), then attaches to a run in progress. */
  async function sync() {
    pendingSync.current = false;
    const fresh = await api(creds, 'GET', `/sessions/${sessionId}`, undefined, sessionDetailSchema);
    paged.current = false;
    setChosen(new Map());
    setMessages(historyToMessages(fresh));
    setPending(pendingOf(fresh));
    if (fresh.active_run_id) void resumeStream();
    void loadBranches();
  }

  // Reads every branch's records again (after a run, a branch): the arrows, fork buttons and cost follow.
  loadBranchesNow.current = async () => {
    if (!options.current.created) return;
    try {
      const read = await api(creds, 'GET', `/sessions/${sessionId}?branches=all`, undefined, sessionDetailSchema);
      // Read after a run or a sync: what is shown is the latest version.
      paged.current = false;
      setChosen(new Map());
      // Runs ended meanwhile stay counted once each: the cost is kept by run id.
      setAll(read);
    } catch {
      // The arrows and fork buttons wait for the next read.
    }
  };

  // A run already in progress when the page opened: re-attach to it. Its branches are read once.
  useEffect(() => {
    if (detail?.active_run_id) void resumeStream();
    void loadBranchesNow.current();
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
      // What it used counts in the session's cost at once.
      if (event.type === 'done' && event.status !== 'awaiting_approval') setEnded((before) => new Map(before).set(event.run_id, event.usage));
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
      if (paged.current) {
        // A new message goes on the latest version: it is shown again.
        void sync();
        return;
      }
      const busyNow = now === 'submitted' || now === 'streaming';
      if (event.branch_from !== undefined) {
        // An edit or a regenerate: our own streams here; another member's is said, and the history shown becomes the new branch.
        const lastOwn = shown.findLast((m) => m.role === 'user')?.parts.map((p) => (p.type === 'text' ? p.text : '')).join('');
        if (busyNow && lastOwn?.trim() === event.text.trim()) return;
        const who = event.author ? (event.author.name ?? event.author.id) : 'Someone';
        setBranchNote(`${who} ${shown.some((m) => m.role === 'user' && m.parts.some((p) => p.type === 'text' && p.text.trim() === event.text.trim())) ? 'asked for a new answer' : 'edited a message'}: the conversation branched (earlier versions stay readable with the ‹ › arrows).`);
        if (busyNow) pendingSync.current = true;
        else void sync();
        return;
      }
      if (busyNow) {
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
  const spent = sessionCost(all?.history ?? [], messages, ended);
  /** The branch shown: its records, each message's versions, and whether it is the latest (the one a new message goes on). */
  const path = useMemo(() => (all ? branchPath(all.history, chosen) : undefined), [all, chosen]);
  const latest = !path || path.active;
  // The model has said nothing yet of the answer being written: no words, thoughts or calls.
  const last = messages.at(-1);
  const said = last?.role === 'assistant' && last.parts.some((p) => (p.type === 'text' || p.type === 'reasoning' ? p.text.length > 0 : p.type.startsWith('tool-') || p.type === 'data-delegation'));
  const thinking = busy && !said;
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
  const currentAgent = agents.find((a) => a.id === agentId);
  /** The models the deployment's agents run on, offered for one message. */
  const models = [...new Set(agents.map((a) => a.model))].sort();
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
    // The rubric goes with this message only; the box empties and closes.
    sendingRubric.current = rubricOpen ? rubric.trim() : '';
    if (sendingRubric.current) {
      setRubric('');
      setRubricOpen(false);
    }
    await chat.sendMessage(attached.length ? { text, files: attached } : { text });
    sendingRubric.current = '';
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

  /** The run a shown message is of: an answer's id is its run's; a question's, the answer after it (one sent here has the client's id until then). */
  function runOf(i: number): string | undefined {
    const m = messages[i]!;
    if (m.role === 'assistant') return m.id;
    const next = messages[i + 1];
    if (next?.role === 'assistant') return next.id;
    return m.id.endsWith(':user') ? m.id.slice(0, -':user'.length) : undefined;
  }

  /** Shows the version written after record `from` as `seq` (and, after it, the latest of each). */
  function page(from: number, seq: number) {
    if (!all) return;
    const next = new Map(chosen).set(from, seq);
    const shown = branchPath(all.history, next);
    // Back on the latest version, the path follows it again.
    paged.current = !shown.active;
    setChosen(shown.active ? new Map() : next);
    setMessages(historyToMessages({ ...all, history: shown.records, queued: shown.active ? all.queued : [] }));
  }

  /** Sends the message at `i` again with new text, through useChat (`sendMessage` with its id): the conversation branches there. */
  async function edit(i: number, text: string) {
    const runId = runOf(i);
    if (!runId) return;
    // useChat replaces the message by its id; the server knows a message by its run's (`<run id>:user`).
    const id = userMessageId(runId);
    if (messages[i]!.id !== id) setMessages(messages.map((m, j) => (j === i ? { ...m, id } : m)));
    setBranchNote(undefined);
    await chat.sendMessage({ text, messageId: id });
  }

  /** Forks the session after the answer of `runId` (its last record in the branch shown) and opens the fork. */
  async function fork(runId: string) {
    const at = path?.records.findLast((r) => r.run_id === runId && r.kind === 'run_end')?.seq;
    if (at === undefined) return;
    try {
      const { session } = await api(creds, 'POST', `/sessions/${sessionId}/fork`, { at_event: at }, sessionResponseSchema);
      onListChanged();
      location.hash = `#/s/${session.session_id}`;
    } catch (err) {
      setNotice((err as Error).message);
    }
  }

  /** What a person may do at the message at `i`: edit their own (an owner anyone's), regenerate the last answer, fork after an answer, page its versions. */
  function steeringOf(i: number): Steering {
    const m = messages[i]!;
    const runId = runOf(i);
    const steer = canWrite && !busy && latest && runId !== undefined;
    const mayEdit = (message: ConsoleMessage | undefined) => !detail || detail.role === 'owner' || !message?.metadata?.author || message.metadata.author.id === userId;
    if (m.role === 'user') {
      return {
        versions: runId ? path?.versions.get(runId) : undefined,
        ...(busy ? {} : { page }),
        ...(steer && mayEdit(m) ? { edit: (text: string) => void edit(i, text) } : {}),
      };
    }
    const finished = runId !== undefined && path?.records.some((r) => r.run_id === runId && r.kind === 'run_end');
    const question = messages.findLast((q, j) => j < i && q.role === 'user');
    return {
      ...(steer && i === messages.length - 1 && mayEdit(question) ? { regenerate: () => (setBranchNote(undefined), void chat.regenerate()) } : {}),
      ...(finished && !busy ? { fork: () => void fork(runId) } : {}),
    };
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
          <label title="The next message's model: the agent's, or another the deployment's agents run on">
            Model
            <select data-testid="model" value={model} onChange={(e) => setModel(e.target.value)} disabled={!canWrite}>
              <option value="">{currentAgent ? `agent's (${currentAgent.model})` : "agent's"}</option>
              {models.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </label>
          <label title="How hard the next answer thinks (extended thinking); a model that cannot think answers with none">
            Effort
            <select data-testid="effort" value={effort} onChange={(e) => setEffort(e.target.value as Effort | '')} disabled={!canWrite}>
              <option value="">{`agent's (${agentEffort(currentAgent)})`}</option>
              <option value="off">no thinking</option>
              <option value="low">low</option>
              <option value="medium">medium</option>
              <option value="high">high</option>
            </select>
          </label>
          {spent.runs ? (
            <span className="session-usage" data-testid="session-usage" title="What this session's answers used, every version's, updated as each answer ends">
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
                steering={steeringOf(i)}
                // A run that failed while it streamed: its answer shows the error (until the history has it).
                streamError={last && error && m.role === 'assistant' && !m.metadata?.error ? streamError(error) : undefined}
              />
            );
          })}
          {thinking ? (
            <div className="thinking-indicator" data-testid="thinking-indicator" role="status">
              {agentName(last?.role === 'assistant' ? last.metadata?.agent_id : undefined)} is thinking…
            </div>
          ) : null}
          {branchNote ? (
            <div className="note" data-testid="branch-note" role="status">
              {branchNote}
            </div>
          ) : null}
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

        {!latest ? (
          <div className="version-notice empty" data-testid="earlier-version">
            <span>You are reading an earlier version of this conversation. New messages go on the latest.</span>
            <button type="button" className="secondary small" data-testid="latest-version" onClick={() => void sync()}>
              Back to the latest
            </button>
          </div>
        ) : canWrite ? (
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
            <button type="button" className="secondary" data-testid="rubric-toggle" aria-expanded={rubricOpen} aria-controls="rubric-box" title="Have a grader check the answer against a rubric" onClick={() => setRubricOpen((open) => !open)}>
              Rubric
            </button>
            {rubricOpen ? (
              <textarea
                id="rubric-box"
                data-testid="rubric"
                className="rubric"
                aria-label="Rubric: a grader checks the answer against it and may send the agent back"
                placeholder="Rubric: what a good answer must do (a grader checks it)"
                value={rubric}
                rows={2}
                onChange={(e) => setRubric(e.target.value)}
              />
            ) : null}
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

/** An agent's own effort, as the Effort box names its default. */
function agentEffort(agent: Agent | undefined): string {
  const thinking = agent?.thinking;
  if (!thinking || 'off' in thinking) return 'no thinking';
  return thinking.adaptive?.effort ?? `${thinking.budget_tokens.toLocaleString()} tokens`;
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
