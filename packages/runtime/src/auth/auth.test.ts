import { describe, expect, it } from 'vitest';
import { sameSecret } from './api-keys';
import { roleAtLeast, weakestRole, withArticle } from './roles';

describe('roles', () => {
  it('rank owner over editor over viewer, and no role reaches none', () => {
    expect(roleAtLeast('owner', 'editor')).toBe(true);
    expect(roleAtLeast('editor', 'editor')).toBe(true);
    expect(roleAtLeast('viewer', 'editor')).toBe(false);
    expect(roleAtLeast(undefined, 'viewer')).toBe(false);
  });

  it('the weakest of several roles is what a caller holding all of them may do; one missing role is none', () => {
    expect(weakestRole(['owner', 'viewer', 'editor'])).toBe('viewer');
    expect(weakestRole(['owner', undefined])).toBeUndefined();
    expect(weakestRole([])).toBeUndefined();
  });

  it('names a role with its article in refusals', () => {
    expect(['owner', 'editor', 'viewer'].map((r) => withArticle(r as 'owner'))).toEqual(['an owner', 'an editor', 'a viewer']);
  });
});

describe('sameSecret', () => {
  it('matches only the identical secret, whatever the lengths', () => {
    expect(sameSecret('zk_abc', 'zk_abc')).toBe(true);
    expect(sameSecret('zk_abc', 'zk_abd')).toBe(false);
    expect(sameSecret('zk_ab', 'zk_abc')).toBe(false);
    expect(sameSecret('', 'zk_abc')).toBe(false);
  });
});
