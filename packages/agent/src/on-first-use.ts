/**
 * A value built the first time it is asked for, then kept: for zod schemas a cold start would otherwise
 * build at import (most requests never parse them). `onFirstUse(() => z.object(…))` is called, not read.
 */
export function onFirstUse<T>(build: () => T): () => T {
  let built: { value: T } | undefined;
  return () => (built ??= { value: build() }).value;
}
