/**
 * On AWS the outbox is swept by the worker when the run queue brings
 * `{"outbox_sweep":"<time>"}`: sent with a delay (at most SQS's 15 minutes)
 * when a delivery is written or is to be retried, so a retry does not depend
 * on the process that made the first attempt. Kept apart from the outbox so
 * the worker reads it without loading the rest.
 */
export const outboxSweepMessage = (at: Date) => ({ outbox_sweep: at.toISOString() });

/** The sweep's time, or undefined when the body is not a sweep (a run job, a schedules tick). */
export function outboxSweepTime(body: string): Date | undefined {
  if (!body.includes('"outbox_sweep"')) return undefined;
  try {
    const value = (JSON.parse(body) as { outbox_sweep?: unknown }).outbox_sweep;
    const at = typeof value === 'string' ? new Date(value) : undefined;
    return at && !Number.isNaN(at.getTime()) ? at : undefined;
  } catch {
    return undefined;
  }
}
