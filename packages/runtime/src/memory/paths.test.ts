import { describe, expect, it } from 'vitest';
import { memoryKey, memoryPathOf, memoryPrefix, memoryStoreName, shownPath } from './paths';

describe('memory paths', () => {
  it('map the model’s /memories paths into the store, and back', () => {
    expect(memoryPathOf('/memories/notes/today.md')).toBe('notes/today.md');
    expect(memoryPathOf('/memories', { root: true })).toBe('');
    expect(memoryPathOf('/memories/', { root: true })).toBe('');
    expect(shownPath('notes/today.md')).toBe('/memories/notes/today.md');
    expect(shownPath('')).toBe('/memories');
  });

  it('refuse paths outside the memory folder or climbing out of it, with the reason', () => {
    expect(() => memoryPathOf('/etc/passwd')).toThrow(/memory paths start with "\/memories\/"/);
    expect(() => memoryPathOf('/memories')).toThrow(/the memory folder itself/);
    for (const input of ['/memories/../secrets', '/memories/a/../../b', '/memories/%2e%2e/x']) {
      let escaped: string | undefined;
      try {
        escaped = memoryKey({ kind: 'user', userId: 'ann' }, memoryPathOf(input));
      } catch {
        escaped = undefined;
      }
      if (escaped !== undefined) expect(escaped.startsWith('memories/users/ann/'), `${input} → ${escaped}`).toBe(true);
    }
  });

  it('keep each user’s store in one folder that no user id can leave', () => {
    expect(memoryPrefix({ kind: 'user', userId: 'ann' })).toBe('memories/users/ann/');
    expect(memoryPrefix({ kind: 'user', userId: '..' })).toBe('memories/users/%2E%2E/');
    expect(memoryPrefix({ kind: 'user', userId: 'a/b' })).toBe('memories/users/a%2Fb/');
    expect(memoryPrefix({ kind: 'project', projectId: 'acme/site' })).toBe('memories/projects/acme/site/');
    expect(() => memoryPrefix({ kind: 'user', userId: '' })).toThrow(/empty/);
    expect(memoryStoreName({ kind: 'project', projectId: 'acme/site' })).toBe('project:acme/site');
  });
});
