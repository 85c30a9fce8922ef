import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiKeyItem, userKeyItem } from './items/api-key';
import { dreamItem } from './items/dream';
import { environmentItem } from './items/environment';
import { eventBatchItem } from './items/event-batch';
import { inboxMessageItem } from './items/inbox-message';
import { outboxDeliveryItem } from './items/outbox-delivery';
import { logItem, logRecordItem } from './items/log-record';
import { projectClaimItem } from './items/project-claim';
import { projectMemberItem } from './items/project-member';
import { reportOwnerItem } from './items/report-owner';
import { runLeaseItem } from './items/run-lease';
import { sessionArtifactItem } from './items/session-artifact';
import { sessionMemberItem } from './items/session-member';
import { sessionMetaItem } from './items/session-meta';
import { sessionPermissionsItem } from './items/session-permissions';
import { sessionSummaryItem } from './items/session-summary';
import { activeRunItem, auditRecordItem, suspensionItem } from './items/operations';
import { spendCounterItem } from './items/spend-counter';
import { streamSlotsItem } from './items/stream-slots';
import { sessionWatcherItem } from './items/session-watcher';
import { deliveryClaimItem } from './items/webhook-delivery';
import { workItem } from './items/work-item';
import { StoredItemError, type StoredItem } from './stored-item';

/** Every item type of the table, by its fixture folder. */
const itemTypes: Record<string, StoredItem<unknown>> = {
  'active-run': activeRunItem,
  'api-key': apiKeyItem,
  'audit-record': auditRecordItem,
  dream: dreamItem,
  environment: environmentItem,
  'event-batch': eventBatchItem,
  'inbox-message': inboxMessageItem,
  'log-item': logItem,
  'log-record': logRecordItem,
  'outbox-delivery': outboxDeliveryItem,
  'project-claim': projectClaimItem,
  'project-member': projectMemberItem,
  'report-owner': reportOwnerItem,
  'run-lease': runLeaseItem,
  'session-artifact': sessionArtifactItem,
  'session-member': sessionMemberItem,
  'session-meta': sessionMetaItem,
  'session-permissions': sessionPermissionsItem,
  'session-summary': sessionSummaryItem,
  'session-watcher': sessionWatcherItem,
  'spend-counter': spendCounterItem,
  'stream-slots': streamSlotsItem,
  'user-api-key': userKeyItem,
  'user-suspension': suspensionItem,
  'webhook-delivery': deliveryClaimItem,
  'work-item': workItem,
};

const fixtures = join(import.meta.dirname, 'fixtures');
/** `fixtures/<item>/v<version>[-<what>].json`: items exactly as the table held them when that version was written. */
const files = Object.keys(itemTypes).flatMap((folder) =>
  readdirSync(join(fixtures, folder)).map((file) => ({ folder, file, version: Number(/^v(\d+)/.exec(file)?.[1]) })),
);
const read = (folder: string, file: string) => JSON.parse(readFileSync(join(fixtures, folder, file), 'utf8')) as Record<string, unknown>[];

// Items outlive deploys: every version of every item type ever written must keep loading.
describe('stored item fixtures', () => {
  it('cover every item type and every version each one reads', () => {
    // Fixtures of S3 objects (not table items) sit beside them; tests/stored-items.test.ts reads those.
    const objects = ['managed-agent-version'];
    expect(readdirSync(fixtures).filter((folder) => !objects.includes(folder)).sort()).toEqual(Object.keys(itemTypes).sort());
    for (const [folder, type] of Object.entries(itemTypes)) {
      const versions = [...new Set(files.filter((f) => f.folder === folder).map((f) => f.version))].sort();
      expect({ folder, versions }).toEqual({ folder, versions: type.versions });
    }
  });

  it.each(files)('$folder $file decodes to the current shape', ({ folder, file, version }) => {
    const type = itemTypes[folder]!;
    const items = read(folder, file);
    expect(items.length).toBeGreaterThan(0);
    for (const item of items) {
      expect(item.v ?? 0).toBe(version);
      const decoded = type.decode(item);
      expect(decoded).toBeTypeOf('object');
      // The version union reads it the same way, and nothing of the key or the index leaks into the value.
      expect(type.schema.parse(item)).toEqual(decoded);
      for (const attribute of ['pk', 'sk', 'gsi1pk', 'gsi1sk']) expect(decoded).not.toHaveProperty(attribute);
    }
  });

  it.each(Object.keys(itemTypes).filter((folder) => itemTypes[folder]!.versions.includes(0)))(
    '%s: an item written without a version reads as the same item written as version 1',
    (folder) => {
      const type = itemTypes[folder]!;
      expect(read(folder, 'v0.json').map((item) => type.decode(item))).toEqual(read(folder, 'v1.json').map((item) => type.decode(item)));
    },
  );

  it('an item that does not decode is a StoredItemError naming the item type and key, never a silent drop', () => {
    const [member] = read('session-member', 'v1.json');
    const { role: _role, ...withoutRole } = member!;
    const error = (() => {
      try {
        sessionMemberItem.decode(withoutRole);
      } catch (caught) {
        return caught;
      }
    })();
    expect(StoredItemError.isInstance(error)).toBe(true);
    expect(error).toMatchObject({ itemType: 'session member', key: 'SESSION#5f0c2b1e-8d7a-4c39-9e7f-1a2b3c4d5e6f MEMBER#alice' });
    expect((error as Error).message).toContain('role');
  });

  it('an item of a version this code does not know (a newer deploy wrote it) is refused, not read as an older one', () => {
    const [record] = read('log-record', 'v1.json');
    expect(() => logRecordItem.decode({ ...record, v: 2 })).toThrow(/stored log record SESSION#\S+ LOG#000000000001 is unreadable: version 2 is not one this code reads/);
    const [message] = read('inbox-message', 'v1.json');
    expect(() => inboxMessageItem.decode({ ...message, v: 7 })).toThrow(StoredItemError);
    expect(inboxMessageItem.schema.safeParse({ ...message, v: 7 }).success).toBe(false);
  });
});
