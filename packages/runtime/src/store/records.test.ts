import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toMessages } from '@zero/agent/loop/history';
import { logRecordSchema } from './records';

// Stored records outlive deploys: every version ever written must keep loading.
describe('stored record fixtures', () => {
  it('version 1 session logs still load and rebuild the conversation', () => {
    const raw = JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', 'log-record', 'v1.json'), 'utf8')) as unknown[];
    const records = raw.map((r) => logRecordSchema.parse(r));
    expect(records.map((r) => r.kind)).toEqual(['user_message', 'assistant', 'tool_results', 'assistant', 'run_end']);
    expect(toMessages(records).map((m) => m.role)).toEqual(['user', 'assistant', 'user', 'assistant']);
  });
});
