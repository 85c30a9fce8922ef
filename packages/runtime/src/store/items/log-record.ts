import * as z from 'zod';
import { logRecordSchema, type LogRecord } from '@zero/agent/records/log-record';
import { keys, objectKeys } from '../keys';
import { storedItem } from '../stored-item';

/**
 * `SESSION#<id>` / `LOG#<seq>`, seq zero-padded. An item holds one record
 * (version 1) or several records at consecutive positions written in one
 * round trip (version 2: `seq` is the first's, `last_seq` the last's, and no
 * item exists at the positions after the first). An item over
 * `OFFLOAD_BYTES` is stored whole in S3 (`objectKey`) and keeps `v`, `seq`,
 * `at`, `run_id`, `kind` (version 2: also `last_seq` and `kinds`) and
 * `offload`, the object's key.
 */
export const logRecordKey = (sessionId: string, seq: number) => ({ pk: keys.session(sessionId), sk: keys.log(seq) });
export const logRecordObjectKey = objectKeys.log;

/** The most records one log item holds: a reader looking for records after a position starts this many positions before it, less one. */
export const MAX_RECORDS_PER_ITEM = 2;

/** The items holding the records after `afterSeq`: a sort-key range starting early enough to take in an item that begins before it. */
export const logRange = (afterSeq = 0): [string, string] => [keys.log(Math.max(1, afterSeq + 2 - MAX_RECORDS_PER_ITEM)), keys.logEnd];
export const logPrefix = keys.logPrefix;

/** The schema and its types stand with the loop's records in @zero/agent; the store keeps the key and the version wrapper. */
export { RECORD_VERSION, logRecordSchema, type LogRecord, type LogRecordKind, type NewLogRecord } from '@zero/agent/records/log-record';

/** The version of an item holding several records. */
export const LOG_ITEM_RECORDS_VERSION = 2;

/**
 * One record as an item held it before items could hold several (every
 * version-1 item; kinds were added over time, none changed). The records
 * inside a version-2 item keep their own version, 1: their shape is the same.
 */
export const logRecordItem = storedItem<LogRecord>('log record', { 1: logRecordSchema });

/** Several records at consecutive positions, in order, written in one round trip. */
const logRecordsSchema = z
  .looseObject({
    v: z.literal(LOG_ITEM_RECORDS_VERSION),
    seq: z.number().int().positive(),
    last_seq: z.number().int().positive(),
    records: z.array(logRecordSchema).min(2).max(MAX_RECORDS_PER_ITEM),
  })
  .refine((item) => item.records.every((record, i) => record.seq === item.seq + i) && item.last_seq === item.seq + item.records.length - 1, {
    message: 'records must sit at consecutive positions from seq to last_seq',
  })
  .transform((item) => item.records);

/**
 * A `LOG#<seq>` item as every reader of the log takes it: the records it
 * holds, in order. Versions: 1 (one record), 2 (several: see
 * `logRecordsSchema`). An older deploy refuses a version-2 item loudly
 * (its `logRecordItem` reads version 1 only) rather than dropping records.
 */
export const logItem = storedItem<LogRecord[]>('log item', {
  1: logRecordSchema.transform((record) => [record]),
  2: logRecordsSchema,
});
