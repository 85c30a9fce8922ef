/**
 * Polls `what` every 20 ms until it gives a value (not undefined) and answers it: for what arrives
 * on its own time, such as a webhook delivery. Throws after `ms` without one.
 */
export async function until<T>(what: () => T | undefined, ms = 10_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const value = what();
    if (value !== undefined) return value;
    if (Date.now() > end) throw new Error('timed out waiting');
    await new Promise((r) => setTimeout(r, 20));
  }
}
