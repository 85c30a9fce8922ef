import Anthropic from '@anthropic-ai/sdk';
import type * as z from 'zod';
import { DEV_KEY, startHarness, type Harness, type HarnessOptions } from './harness';
import { valid } from './managed-agents-schemas';

/** The official SDK pointed at the harness with `apiKey` (the deployment's administrator's unless given); it retries nothing, so each call is one request. */
export const sdkClient = (h: Harness, apiKey: string = DEV_KEY) => new Anthropic({ apiKey, baseURL: h.url, maxRetries: 0 });

/** A new API key of `user` (signed up on first use, not an administrator), as the SDK takes it. */
export const apiKeyOf = async (h: Harness, user: string, name?: string) => (await h.userHeaders(user, name)).authorization!.slice('Bearer '.length);

/** The SDK as `user`, with a new API key of theirs. */
export const sdkClientAs = async (h: Harness, user: string, name?: string) => sdkClient(h, await apiKeyOf(h, user, name));

/** A harness and the SDK as its administrator: `({ h, client } = await startHarnessWithSdk())`. */
export async function startHarnessWithSdk(options?: HarnessOptions): Promise<{ h: Harness; client: Anthropic }> {
  const h = await startHarness(options);
  return { h, client: sdkClient(h) };
}

/** A stream's iterator, so that successive reads of it go on where the last stopped. */
export const iterate = (stream: AsyncIterable<unknown>) => stream[Symbol.asyncIterator]();

/**
 * A reader of the SDK's event stream: reads until `stop` says so, each event checked against `schema`
 * (the SDK's types); throws when the stream ends first, naming what it got.
 */
export function streamReader<S extends z.ZodType<{ type: string }>>(schema: S) {
  return async (events: AsyncIterator<unknown>, stop: (event: z.infer<S>) => boolean): Promise<z.infer<S>[]> => {
    const out: z.infer<S>[] = [];
    for (;;) {
      const { value, done } = await events.next();
      if (done) throw new Error(`the stream ended before the expected event; got ${out.map((e) => e.type).join(', ')}`);
      const event = valid(schema, value);
      out.push(event);
      if (stop(event)) return out;
    }
  };
}
