import { randomUUID } from 'node:crypto';
import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { activeRunItem, auditRecordItem, suspensionItem, type ActiveRunItem, type AuditRecord, type Suspension } from './items/operations';
import { keys } from './keys';
import { Table } from './table';

/**
 * What operators act on across instances: the runs active now (one item per
 * run in one partition, so listing them is one query, never a scan), the
 * audit log of administrators' actions, and suspended users.
 */
export class OperationsStore {
  readonly items: Table;

  constructor(db: DynamoDBDocumentClient, table: string) {
    this.items = new Table(db, table);
  }

  /** Names a run as active, with its session's spend counter as it is now. */
  async runStarted(run: Omit<ActiveRunItem, 'cost_micros' | 'calls'>): Promise<void> {
    const { run_id: runId, ...fields } = run;
    const names = Object.keys(fields);
    await this.items.update(keys.activeRun(runId), {
      set: `SET v = :v, run_id = :run, ${names.map((name, i) => `#f${i} = :f${i}`).join(', ')}`,
      names: Object.fromEntries(names.map((name, i) => [`#f${i}`, name])),
      values: { ':v': activeRunItem.version, ':run': runId, ...Object.fromEntries(names.map((name, i) => [`:f${i}`, fields[name as keyof typeof fields]])) },
    });
  }

  async runEnded(runId: string): Promise<void> {
    await this.items.delete(keys.activeRun(runId));
  }

  /** The runs active now (items past `expires_at` died with their process and are left out). */
  async activeRuns(): Promise<ActiveRunItem[]> {
    const now = Date.now();
    const items = await this.items.query({ pk: keys.activeRuns, consistent: true });
    return items.map((item) => activeRunItem.decode(item)).filter((run) => expiresAtMs(run.expires_at) > now);
  }

  async activeRun(runId: string): Promise<ActiveRunItem | undefined> {
    const item = await this.items.get(keys.activeRun(runId), { consistent: true });
    return item ? activeRunItem.decode(item) : undefined;
  }

  async audit(record: Omit<AuditRecord, 'at'>): Promise<AuditRecord> {
    const at = new Date().toISOString();
    const full = { ...record, at };
    await this.items.put({ ...keys.audit(at, randomUUID()), v: auditRecordItem.version, ...full });
    return full;
  }

  async auditLog(limit = 100): Promise<AuditRecord[]> {
    const items = await this.items.query({ pk: keys.auditLog, newestFirst: true, limit, consistent: true });
    return items.map((item) => auditRecordItem.decode(item));
  }

  async suspension(userId: string): Promise<Suspension | undefined> {
    const item = await this.items.get(keys.suspension(userId), { consistent: true });
    return item ? suspensionItem.decode(item) : undefined;
  }

  async suspend(userId: string, suspension: Suspension): Promise<void> {
    await this.items.put({ ...keys.suspension(userId), v: suspensionItem.version, ...suspension });
  }

  async resume(userId: string): Promise<void> {
    await this.items.delete(keys.suspension(userId));
  }
}

/** `expires_at` in ms: epoch seconds, or (items an earlier version wrote) already milliseconds. */
const expiresAtMs = (value: number) => (value > 1e11 ? value : value * 1000);
