import * as z from 'zod';
import { errorText, log } from '@zero/agent/log/log';

/** A request to carry a session on: answer its waiting messages and resume an unfinished run. */
export const runJobSchema = z.object({
  session_id: z.string().min(1).max(128),
  /** Why the job was sent, for logs: a webhook, a handover near the time limit, a retry. */
  reason: z.string().max(200).optional(),
});
export type RunJob = z.infer<typeof runJobSchema>;

/**
 * Where background runs are sent: SQS in AWS (the worker function consumes
 * it), an in-process queue locally. Delivery is at least once; a job is
 * idempotent because driving a session with nothing to do does nothing.
 */
export interface RunQueue {
  send(job: RunJob): Promise<void>;
  /** Sends another message for the worker after a delay (SQS: at most 900 s), e.g. an outbox sweep; absent where nothing can wait (the local queue). */
  sendLater?(message: Record<string, string>, delaySeconds: number): Promise<void>;
  /** Sends another kind of message for the worker now (a dream's job), told apart by its fields; absent where the worker takes only run jobs. */
  sendMessage?(message: Record<string, string>): Promise<void>;
}

/** The local stand-in for SQS: jobs run in this process, one at a time per session, failures retried with backoff. */
export class InProcessQueue implements RunQueue {
  private readonly running = new Map<string, Promise<void>>();
  private readonly pending = new Set<Promise<void>>();

  constructor(
    private readonly handle: (job: RunJob) => Promise<void>,
    private readonly options: {
      attempts?: number;
      retryBaseMs?: number;
      /** Handles the other messages (`sendMessage`); absent: the queue takes only run jobs. */
      onMessage?: (message: Record<string, string>) => Promise<void>;
    } = {},
  ) {
    if (!options.onMessage) this.sendMessage = undefined;
  }

  /** Runs the message's handler here, retried as a run job is (each message on its own, not one at a time). */
  sendMessage?: (message: Record<string, string>) => Promise<void> = async (message) => {
    const handle = this.options.onMessage!;
    this.track(this.retried(() => handle(message), { message: JSON.stringify(message).slice(0, 200) }));
  };

  async send(job: RunJob): Promise<void> {
    const parsed = runJobSchema.parse(job);
    const previous = this.running.get(parsed.session_id) ?? Promise.resolve();
    const next = previous.then(() => this.retried(() => this.handle(parsed), { session_id: parsed.session_id }));
    this.running.set(parsed.session_id, next);
    this.track(next);
    void next.finally(() => {
      if (this.running.get(parsed.session_id) === next) this.running.delete(parsed.session_id);
    });
  }

  private track(work: Promise<void>) {
    this.pending.add(work);
    void work.finally(() => this.pending.delete(work));
  }

  /** Resolves when every job sent so far has been handled (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pending.size) await Promise.allSettled([...this.pending]);
  }

  private async retried(work: () => Promise<void>, about: Record<string, string>) {
    const attempts = this.options.attempts ?? 3;
    for (let attempt = 1; attempt <= attempts; attempt++) {
      try {
        await work();
        return;
      } catch (error) {
        log.error('run job failed', { ...about, attempt, error: errorText(error) });
        if (attempt < attempts) await new Promise((r) => setTimeout(r, (this.options.retryBaseMs ?? 500) * 2 ** (attempt - 1)));
      }
    }
  }
}
