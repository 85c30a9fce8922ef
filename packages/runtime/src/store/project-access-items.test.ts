import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectClaimSchema } from './items/project-claim';
import { projectMemberSchema } from './items/project-member';
import { reportOwnerSchema } from './items/report-owner';

// Project access items outlive deploys: every version ever written must keep loading.
describe('stored project access fixtures', () => {
  it('version 1 claim, member and report owner items still load', () => {
    const read = (item: string) => JSON.parse(readFileSync(join(import.meta.dirname, 'fixtures', item, 'v1.json'), 'utf8'));
    const raw = { claim: read('project-claim')[0], members: read('project-member'), report: read('report-owner')[0] };
    expect(projectClaimSchema.parse(raw.claim)).toEqual({ v: 1, project_id: 'acme/shop', created_by: 'alice', created_at: '2026-03-02T10:00:00.000Z' });
    expect(raw.members.map((m: unknown) => projectMemberSchema.parse(m)).map((m: { user_id: string; role: string }) => [m.user_id, m.role])).toEqual([
      ['alice', 'owner'],
      ['bob', 'viewer'],
    ]);
    expect(reportOwnerSchema.parse(raw.report)).toMatchObject({ path: '5f0c2b1e-8d7a-4c39-9e7f-1a2b3c4d5e6f.md', session_id: '5f0c2b1e-8d7a-4c39-9e7f-1a2b3c4d5e6f' });
  });
});
