import { startHarness, type Harness, type HarnessOptions } from './harness';

/** A signed-in user's request headers. */
export type UserHeaders = Record<string, string>;

/**
 * A harness and a signed-in user for each id (named as the id capitalised: `alice` → `Alice`), keyed
 * by id, for tests where several people share sessions:
 * `({ h, alice, bob } = await startHarnessWithUsers(['alice', 'bob']))`.
 */
export async function startHarnessWithUsers<const Id extends string>(ids: readonly Id[], options?: HarnessOptions): Promise<{ h: Harness } & Record<Id, UserHeaders>> {
  const h = await startHarness(options);
  const users = {} as Record<Id, UserHeaders>;
  for (const id of ids) users[id] = await h.userHeaders(id, id[0]!.toUpperCase() + id.slice(1));
  return { h, ...users };
}
