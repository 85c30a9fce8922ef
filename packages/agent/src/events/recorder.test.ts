import { describe, expect, it } from 'vitest';
import type { StreamEvent } from '../wire';
import { EventRecorder, type RecorderStorage } from './recorder';

/** An event log in memory, as the store keeps it: batches by position. */
function memoryLog(options: { failWritesAfter?: number } = {}) {
  let next = 1;
  const batches = new Map<number, StreamEvent[]>();
  const storage: RecorderStorage = {
    allocate: async () => next++,
    write: async (seq, events) => {
      if (options.failWritesAfter !== undefined && batches.size >= options.failWritesAfter) throw new Error('lease lost');
      batches.set(seq, events);
    },
  };
  return { storage, batches };
}

const text = (t: string) => ({ type: 'text_delta', text: t }) as unknown as StreamEvent;
const done = { type: 'done', status: 'completed' } as unknown as StreamEvent;

describe('EventRecorder', () => {
  it('gives every event its id at once, and writes every event once, in order', async () => {
    const { storage, batches } = memoryLog();
    const recorder = new EventRecorder(storage, 10_000);
    await recorder.open();
    recorder.emit(text('a'));
    recorder.emit(text('b'));
    expect(recorder.events.map((e) => e.event_id)).toEqual(['1.0', '1.1']);
    await recorder.close();
    expect([...batches.values()].flat()).toEqual([text('a'), text('b')]);
    expect(recorder.closed).toBe(true);
  });

  it('writes the run’s end at once, without waiting for the flush interval', async () => {
    const { storage, batches } = memoryLog();
    const recorder = new EventRecorder(storage, 60_000);
    await recorder.open();
    recorder.emit(text('last words'));
    recorder.emit(done);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect([...batches.values()].flat().at(-1)).toEqual(done);
  });

  it('after a lost lease, readers in this process still get every event, and the failure is kept', async () => {
    const { storage, batches } = memoryLog({ failWritesAfter: 0 });
    const recorder = new EventRecorder(storage, 0);
    await recorder.open();
    recorder.emit(text('one'));
    await new Promise((resolve) => setTimeout(resolve, 20));
    recorder.emit(text('two'));
    recorder.emit(done);
    await recorder.close();
    expect(batches.size).toBe(0);
    expect(recorder.failure?.message).toBe('lease lost');
    expect(recorder.events.map((e) => (e as { text?: string }).text ?? e.type)).toEqual(['one', 'two', 'done']);
    const ids = recorder.events.map((e) => e.event_id);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('hands a late reader exactly the events after its last id', async () => {
    const recorder = new EventRecorder(memoryLog().storage, 10_000);
    await recorder.open();
    for (const t of ['a', 'b', 'c']) recorder.emit(text(t));
    expect(recorder.eventsAfter({ seq: 1, index: 0 }).map((e) => e.event_id)).toEqual(['1.1', '1.2']);
    expect(recorder.eventsAfter(undefined)).toHaveLength(3);
    await recorder.close();
  });
});
