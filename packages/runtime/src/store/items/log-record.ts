import { logRecordSchema, type LogRecord } from '@zero/agent/records/log-record';
import { keys, objectKeys } from '../keys';
import { storedItem } from '../stored-item';

/**
 * `SESSION#<id>` / `LOG#<seq>`, seq zero-padded. A record over
 * `OFFLOAD_BYTES` is stored whole in S3 (`objectKey`) and the item keeps
 * `v`, `seq`, `at`, `run_id`, `kind` and `offload`, the object's key.
 */
export const logRecordKey = (sessionId: string, seq: number) => ({ pk: keys.session(sessionId), sk: keys.log(seq) });
export const logRecordObjectKey = objectKeys.log;

/** The whole log after `afterSeq`: a sort-key range. */
export const logRange = (afterSeq = 0): [string, string] => [keys.log(afterSeq + 1), keys.logEnd];
export const logPrefix = keys.logPrefix;

/** The schema and its types stand with the loop's records in @zero/agent; the store keeps the key and the version wrapper. */
export { RECORD_VERSION, logRecordSchema, type LogRecord, type LogRecordKind, type NewLogRecord } from '@zero/agent/records/log-record';

/**
 * Versions: 1 (every record so far; kinds were added over time, none
 * changed). A version 2 joins here with a transform that upgrades 1.
 */
export const logRecordItem = storedItem<LogRecord>('log record', { 1: logRecordSchema });
