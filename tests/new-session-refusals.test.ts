import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEV, send, startHarness, type Harness } from './support/harness';
import { countingStoreRequests, writesOf } from './support/store-requests';

/**
 * A message that opens a session takes the session's lease while the session's items are written. A
 * message refused before that (an agent nobody has) writes nothing at all: no session, no lease.
 */
describe('a message refused as it would open a session', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('naming an agent nobody has: 404, and not one write to the table', async () => {
    let response!: Awaited<ReturnType<typeof send>>;
    const requests = await countingStoreRequests(h, async () => {
      response = await send(h, 'POST', '/chat', DEV, { agent_id: 'nobody-has-this-agent', message: 'hello' });
    });
    expect(response.status).toBe(404);
    expect(response.json.error).toMatchObject({ code: 'agent_not_found' });
    expect(writesOf(requests).writes).toEqual([]);
  });
});
