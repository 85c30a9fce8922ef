// The errors alone: the entry point stays free of the wire's schemas until a command needs them.
import { ZeroApiError, ZeroConnectionError, ZeroProtocolError } from '@zero/client/errors';
import type { DoneStatus } from '@zero/agent/wire';

/** Exit codes, documented in docs/cli.md. */
export const EXIT = {
  ok: 0,
  error: 1,
  usage: 2,
  limit: 3,
  cancelled: 4,
  awaitingApproval: 5,
  unauthorized: 6,
  unreachable: 7,
  budgetReached: 8,
} as const;

/** The exit code of a run's end. */
export function exitCodeOf(status: DoneStatus | undefined): number {
  if (status === 'completed') return EXIT.ok;
  if (status === 'limit') return EXIT.limit;
  if (status === 'cancelled') return EXIT.cancelled;
  if (status === 'awaiting_approval') return EXIT.awaitingApproval;
  if (status === 'budget_reached') return EXIT.budgetReached;
  return EXIT.error;
}

/** A failure the CLI explains in one line and exits with. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT.error,
  ) {
    super(message);
  }
}

/** Any error as the line printed on stderr and the exit code. */
export function explain(error: unknown, url?: string): { message: string; exitCode: number } {
  if (error instanceof CliError) return { message: error.message, exitCode: error.exitCode };
  if (ZeroApiError.isInstance(error)) {
    if (error.status === 401) {
      return { message: `the key was refused by ${url ?? 'the server'} (401: ${error.message}); run "zero login" or set ZERO_KEY`, exitCode: EXIT.unauthorized };
    }
    if (error.code === 'budget_reached') return { message: `budget_reached: ${error.message}`, exitCode: EXIT.budgetReached };
    const field = error.field ? ` (field ${error.field})` : '';
    return { message: `${error.code}: ${error.message}${field}`, exitCode: error.status === 400 ? EXIT.usage : EXIT.error };
  }
  if (ZeroConnectionError.isInstance(error)) return { message: error.message, exitCode: EXIT.unreachable };
  if (ZeroProtocolError.isInstance(error)) return { message: error.message, exitCode: EXIT.error };
  return { message: error instanceof Error ? error.message : String(error), exitCode: EXIT.error };
}
