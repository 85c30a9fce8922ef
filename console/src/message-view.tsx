import { ApprovalView, type Approvals } from './approvals';
import { CopyButton } from './copy';
import type { Delegation, OutcomeGradePart, PlanProgressPart } from '@zero/agent/wire';
import type { ConsoleMessage } from './history';
import { Markdown } from './markdown';
import { FilePreview } from './attachments';
import { useState } from 'react';
import { describeRunError } from './run-error';
import { BranchArrows, EditBox, modelLabel, type Steering } from './steering';

type Part = ConsoleMessage['parts'][number];
type ToolPart = { type: string; toolCallId: string; state: string; input?: unknown; output?: unknown; errorText?: string };

const TOOL_STATE: Record<string, string> = {
  'input-streaming': 'calling…',
  'input-available': 'running…',
  'output-available': 'done',
  'output-error': 'failed',
  'approval-requested': 'waits for approval',
  'approval-responded': 'decided',
  'output-denied': 'denied',
};

const show = (value: unknown) => (typeof value === 'string' ? value : JSON.stringify(value, null, 2));

/** A tool call and its result, collapsed to one line until opened. */
function ToolCall({ part, approvals }: { part: ToolPart; approvals?: Approvals }) {
  const name = part.type.slice('tool-'.length);
  return (
    <>
      <details className={`tool tool-${part.state}`} data-testid="tool-call">
        <summary>
          <span className="tool-name">{name}</span> <span className="tool-state">{TOOL_STATE[part.state] ?? part.state}</span>
        </summary>
        <div className="tool-label">input</div>
        <pre>{show(part.input ?? {})}</pre>
        {part.state === 'output-available' && (
          <>
            <div className="tool-label">result</div>
            <pre>{show(part.output)}</pre>
          </>
        )}
        {part.state === 'output-error' && (
          <>
            <div className="tool-label">error</div>
            <pre className="error-text">{part.errorText}</pre>
          </>
        )}
      </details>
      {approvals ? <ApprovalView toolCallId={part.toolCallId} approvals={approvals} /> : null}
    </>
  );
}

const DELEGATE_TOOL_STATE = { running: 'input-available', waiting: 'approval-requested', done: 'output-available', failed: 'output-error' } as const;

const tokensAndCost = (usage: { input_tokens: number; output_tokens: number; cost_usd: number }) =>
  `${(usage.input_tokens + usage.output_tokens).toLocaleString()} tokens · $${usage.cost_usd.toFixed(4)}`;

/** A task handed to another agent: who handed it to whom, the delegate's own words and calls (open while it works), and what it spent. */
function DelegationView({ delegation: d, approvals }: { delegation: Delegation; approvals?: Approvals }) {
  return (
    <details className="delegation" data-testid="delegation" open={!d.status}>
      <summary>
        <span className="handover" data-testid="handover">
          {d.from} → {d.to}
        </span>{' '}
        <span className="tool-state" data-testid="delegation-status">
          {d.status ? (d.status === 'completed' ? 'handed back' : d.status) : 'working…'}
          {d.usage ? ` · ${tokensAndCost(d.usage)}` : ''}
        </span>
      </summary>
      <div className="delegation-body">
        {d.items.map((item, i) =>
          item.type === 'text' ? (
            <Markdown key={i} text={item.text} />
          ) : (
            <ToolCall
              key={item.id}
              part={{ type: `tool-${item.name}`, toolCallId: item.id, state: DELEGATE_TOOL_STATE[item.state], input: item.input, output: item.output, errorText: item.output }}
              approvals={approvals}
            />
          ),
        )}
      </div>
    </details>
  );
}

const PLAN_MARK = { pending: '○', started: '◐', done: '✓', failed: '✗' } as const;

/** A run of a plan: every step, in order, with where it stands (a step not reported yet is pending) and its note. */
const OUTCOME_RESULT: Record<string, string> = { satisfied: 'accepted', needs_revision: 'sent back', max_iterations_reached: 'not met (no attempts left)', failed: 'could not be graded' };

/** An answer's grade against its message's rubric: "grading…" while the grader works, then the grade and its reasons. */
function OutcomeView({ grade }: { grade: OutcomeGradePart }) {
  const of = `iteration ${grade.iteration + 1}${grade.max_iterations ? ` of ${grade.max_iterations}` : ''}`;
  if (grade.phase !== 'end') {
    return (
      <div className="outcome" data-testid="outcome" data-phase={grade.phase} role="status">
        <span className="tool-label">Rubric · grading… ({of})</span>
      </div>
    );
  }
  return (
    <div className="outcome" data-testid="outcome" data-phase="end" data-result={grade.result}>
      <div className="tool-label">
        Rubric · <strong data-testid="outcome-result">{OUTCOME_RESULT[grade.result ?? 'failed'] ?? grade.result}</strong> ({of})
        {grade.score !== undefined ? ` · score ${grade.score}` : ''}
      </div>
      {grade.explanation ? <p className="outcome-reasons" data-testid="outcome-reasons">{grade.explanation}</p> : null}
    </div>
  );
}

function PlanView({ plan }: { plan: PlanProgressPart }) {
  const reported = new Map(plan.reported.map((r) => [r.step, r]));
  const steps = Array.from({ length: plan.steps }, (_, i) => reported.get(i + 1) ?? { step: i + 1, title: '', status: 'pending' as const, note: undefined });
  return (
    <div className="plan" data-testid="plan">
      <div className="tool-label">Plan · {plan.reported.filter((r) => r.status === 'done').length}/{plan.steps} done</div>
      <ol className="plan-steps">
        {steps.map((s) => (
          <li key={s.step} className={`plan-step plan-${s.status}`} data-testid="plan-step" data-status={s.status}>
            <span className="plan-mark" aria-hidden="true">
              {PLAN_MARK[s.status]}
            </span>{' '}
            <span className="plan-title">{s.title || `Step ${s.step}`}</span> <span className="tool-state">{s.status}</span>
            {s.note ? <span className="plan-note"> — {s.note}</span> : null}
          </li>
        ))}
      </ol>
    </div>
  );
}

function PartView({ part, approvals, markdown, delegated }: { part: Part; approvals?: Approvals; markdown: boolean; delegated: ReadonlySet<string> }) {
  // A delegate_agent call shows as its delegation.
  if ('toolCallId' in part && delegated.has(part.toolCallId)) return null;
  if (part.type === 'data-plan-progress') return <PlanView plan={part.data} />;
  if (part.type === 'data-outcome') return <OutcomeView grade={part.data} />;
  if (part.type === 'data-delegation') return <DelegationView delegation={part.data} approvals={approvals} />;
  // A person's message shows as they typed it; an answer is Markdown.
  if (part.type === 'file') return <FilePreview part={part} />;
  if (part.type === 'text') return markdown ? <Markdown text={part.text} /> : <div className="text">{part.text}</div>;
  if (part.type === 'reasoning') {
    // The model's extended thinking: closed unless a reader opens it.
    return (
      <details className="thinking" data-testid="thinking">
        <summary>{part.state === 'streaming' ? 'Thinking…' : 'Thought'}</summary>
        <div className="text">{part.text}</div>
      </details>
    );
  }
  if (part.type.startsWith('tool-')) return <ToolCall part={part as unknown as ToolPart} approvals={approvals} />;
  if (part.type === 'data-compacted') {
    return (
      <div className="note" data-testid="compacted">
        Conversation compacted: {part.data.turns_folded} earlier {part.data.turns_folded === 1 ? 'turn' : 'turns'} summarised ({part.data.tokens_before.toLocaleString()} →{' '}
        {part.data.tokens_after.toLocaleString()} tokens). The full history stays in the session.
      </div>
    );
  }
  if (part.type === 'data-agent-switch') return <div className="note">Handed over to {part.data.to}</div>;
  if (part.type === 'data-retry') return <div className="note">The model stream failed; the step is redone (the text above it was discarded).</div>;
  // The call's own part carries the approval.
  if (part.type === 'data-confirmation-required') return null;
  return null;
}

/** The answer's words, as Markdown, for its copy button. */
const answerText = (message: ConsoleMessage) =>
  message.parts
    .map((p) => (p.type === 'text' ? p.text : ''))
    .filter(Boolean)
    .join('\n\n');

function Footer({ message, steering }: { message: ConsoleMessage; steering?: Steering }) {
  const meta = message.metadata;
  const hasText = message.role === 'assistant' && message.parts.some((p) => p.type === 'text' && p.text.trim());
  if (!meta?.status && !hasText && !steering?.regenerate && !steering?.fork) return null;
  const usage = meta?.usage;
  return (
    <div className="footer">
      {meta?.status ? (
        <span data-testid="run-status">
          {meta.agent_id ? `${meta.agent_id} · ` : ''}
          {meta.status}
          {usage ? ` · ${tokensAndCost(usage)}` : ''}
        </span>
      ) : (
        <span />
      )}
      <span className="footer-actions">
        {steering?.regenerate ? (
          <button type="button" className="copy" data-testid="regenerate" title="Answer the message again (this answer stays readable as a version)" onClick={steering.regenerate}>
            Regenerate
          </button>
        ) : null}
        {steering?.fork ? (
          <button type="button" className="copy" data-testid="fork" title="A new session whose history is this one up to here" onClick={steering.fork}>
            Fork
          </button>
        ) : null}
        {hasText ? <CopyButton text={() => answerText(message)} label="Copy answer" testId="copy-answer" /> : null}
      </span>
    </div>
  );
}

/** A failed run: what happened in a sentence, its code, what the API said, and a way to send the message again. */
export function RunError({ error, agent, onRetry }: { error: { code: string; message: string }; agent: string; onRetry?: () => void }) {
  const shown = describeRunError(error);
  return (
    <div className="run-error" role="alert" data-testid="run-error">
      <p>
        <strong>{agent} could not answer.</strong> {shown.sentence}
      </p>
      <p className="meta">
        <code data-testid="error-code">{shown.code}</code>
        {shown.status ? ` · HTTP ${shown.status}` : ''}
        {shown.detail ? ` · ${shown.detail}` : ''}
      </p>
      {onRetry ? (
        <button type="button" data-testid="retry" onClick={onRetry}>
          Retry
        </button>
      ) : null}
    </div>
  );
}

export interface MessageViewProps {
  message: ConsoleMessage;
  approvals?: Approvals;
  /** An agent's name by its id; an answer without one is the session's agent's. */
  agentName(id: string | undefined): string;
  /** An agent's colour and domain by its id (see agentColour), for the byline of its answers. */
  agentLook?(id: string | undefined): { colour?: string; domain?: string };
  /** Sends the message this failed answer answered again. */
  onRetry?: () => void;
  /** The error that ended this answer's stream, before the history records it. */
  streamError?: { code: string; message: string };
  /** Edit, regenerate, fork and the branch arrows, where this message has them. */
  steering?: Steering;
}

/** One message: who wrote it (a person by the name they chose and by their user id, which no one else can take), then its parts in order. */
export function MessageView({ message, approvals, agentName, agentLook, onRetry, streamError, steering }: MessageViewProps) {
  const [editing, setEditing] = useState(false);
  const failure = message.metadata?.error ?? streamError;
  const delegated = new Set(message.parts.flatMap((p) => (p.type === 'data-delegation' && p.data.tool_call_id ? [p.data.tool_call_id] : [])));
  const writer = message.role === 'user' ? message.metadata?.author : undefined;
  const author = message.role === 'user' ? (writer ? (writer.name ?? writer.id) : 'You') : agentName(message.metadata?.agent_id);
  const look = message.role === 'assistant' ? agentLook?.(message.metadata?.agent_id) : undefined;
  return (
    <article className={`message message-${message.role}`} data-testid={`message-${message.role}`} data-message-id={message.id}>
      <div className="byline">
        <header className="author" data-testid="author">
          {look?.colour ? <span className="agent-dot" data-testid="agent-dot" style={{ background: look.colour }} aria-hidden="true" /> : null}
          {author}
          {message.metadata?.queued ? <span className="badge">queued</span> : null}
        </header>
        {look?.domain ? (
          <span className="agent-domain" data-testid="agent-domain" title="domain">
            {look.domain}
          </span>
        ) : null}
        {writer?.name ? (
          <span className="author-id" data-testid="author-id" title="user id">
            {writer.id}
          </span>
        ) : null}
        {message.role === 'assistant' && message.metadata?.model ? (
          <span className="answer-model" data-testid="answer-model" title="model · thinking effort">
            {modelLabel(message.metadata.model, message.metadata.effort)}
          </span>
        ) : null}
        {steering?.versions ? <BranchArrows versions={steering.versions} page={steering.page} /> : null}
        {steering?.edit && !editing ? (
          <button type="button" className="copy" data-testid="edit" title="Edit this message: the conversation branches here (this version stays readable)" onClick={() => setEditing(true)}>
            Edit
          </button>
        ) : null}
      </div>
      {editing && steering?.edit ? (
        <EditBox
          text={message.parts.map((p) => (p.type === 'text' ? p.text : '')).join('')}
          onCancel={() => setEditing(false)}
          onSave={(text) => {
            setEditing(false);
            steering.edit?.(text);
          }}
        />
      ) : (
        message.parts.map((part, i) => <PartView key={i} part={part} approvals={approvals} markdown={message.role === 'assistant'} delegated={delegated} />)
      )}
      {message.metadata?.status === 'cancelled' ? (
        <div className="note" data-testid="stopped">
          Stopped
        </div>
      ) : null}
      {failure ? <RunError error={failure} agent={author} onRetry={onRetry} /> : null}
      <Footer message={message} steering={steering} />
    </article>
  );
}
