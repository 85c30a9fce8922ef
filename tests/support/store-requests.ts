import type { Harness } from './harness';

/** Every DynamoDB request the runtime sends while `body` runs, and the bytes of their bodies (observed on the SDK client). */
export async function countingStoreRequests(h: Harness, body: () => Promise<unknown>) {
  const seen: { command: string; bytes: number }[] = [];
  const stack = h.server.runtime.sessions.db.middlewareStack;
  const name = `count-${Math.random()}`;
  stack.add(
    (next, context) => async (args) => {
      const request = args.request as { body?: unknown };
      seen.push({ command: String(context.commandName), bytes: typeof request.body === 'string' ? Buffer.byteLength(request.body) : request.body instanceof Uint8Array ? request.body.byteLength : -1 });
      return next(args);
    },
    { step: 'finalizeRequest', name },
  );
  try {
    await body();
  } finally {
    stack.remove(name);
  }
  return seen;
}

/** The writes among `requests`, and the bytes they sent. */
export function writesOf(requests: { command: string; bytes: number }[]) {
  const writes = requests.filter((r) => /Put|Update|Write|Delete/.test(r.command));
  return { writes, bytes: writes.reduce((sum, w) => sum + w.bytes, 0) };
}
