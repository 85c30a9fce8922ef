import { useState } from 'react';
import type { Effort } from '@zero/agent/wire';
import type { MessageVersions } from './branches';

/**
 * What a person can do to steer the conversation at one message (see docs/sessions-steering.md);
 * each is absent where they may not (a viewer, another member's message, an answer still written,
 * an earlier version being read).
 */
export interface Steering {
  /** Where the message stands among its versions (an edit or a regenerate made others). */
  versions?: MessageVersions;
  /** Shows the version written after `versions.from` as `seq`. */
  page?(from: number, seq: number): void;
  /** Sends the message again with this text: the conversation branches there. */
  edit?(text: string): void;
  /** Answers the last message again. */
  regenerate?(): void;
  /** Forks the session after this answer and opens the fork. */
  fork?(): void;
}

/** `‹ 2/3 ›`: which version of a message this is, with arrows to the one before and after. */
export function BranchArrows({ versions, page }: { versions: MessageVersions; page?: Steering['page'] }) {
  const { index, count, from, previous, next } = versions;
  return (
    <span className="branch-nav" data-testid="branch-nav" role="group" aria-label={`Version ${index} of ${count}`}>
      <button type="button" className="link" data-testid="branch-prev" aria-label="Previous version" disabled={previous === undefined || !page} onClick={() => page?.(from, previous!)}>
        ‹
      </button>
      <span data-testid="branch-position">
        {index}/{count}
      </span>
      <button type="button" className="link" data-testid="branch-next" aria-label="Next version" disabled={next === undefined || !page} onClick={() => page?.(from, next!)}>
        ›
      </button>
    </span>
  );
}

/** A user message's text being edited in place: Save sends it as a new version, Esc or Cancel leaves it. */
export function EditBox({ text, onSave, onCancel }: { text: string; onSave(text: string): void; onCancel(): void }) {
  const [draft, setDraft] = useState(text);
  const changed = draft.trim() && draft.trim() !== text.trim();
  return (
    <form
      className="edit-box"
      data-testid="edit-form"
      onSubmit={(e) => {
        e.preventDefault();
        if (changed) onSave(draft.trim());
      }}
    >
      <textarea
        data-testid="edit-input"
        aria-label="Edited message"
        value={draft}
        rows={Math.min(8, Math.max(2, draft.split('\n').length))}
        autoFocus
        onChange={(e) => setDraft(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            // Esc leaves the message as it was (and does not stop a run).
            e.preventDefault();
            onCancel();
          } else if (e.key === 'Enter' && !e.shiftKey) {
            e.preventDefault();
            e.currentTarget.form?.requestSubmit();
          }
        }}
      />
      <div className="edit-actions">
        <button type="button" className="secondary small" onClick={onCancel}>
          Cancel
        </button>
        <button type="submit" className="small" data-testid="edit-save" disabled={!changed}>
          Send
        </button>
      </div>
    </form>
  );
}

/** An answer's model and how hard it thinks, as its byline shows them. */
export function modelLabel(model: string, effort: Effort | undefined): string {
  if (!effort) return model;
  return `${model} · ${effort === 'off' ? 'no thinking' : `${effort} effort`}`;
}
