import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ZeroError, conflict, forbidden, invalidField, notFound, statusOf, tooLarge, unauthorized } from '@zero/agent/errors';
import { ModelCallAborted, ModelError } from '@zero/agent/model/provider';
import { OutboundBlockedError } from '@zero/agent/net/outbound';
import { PathError } from '@zero/runtime/projects/paths';
import { LeaseLostError } from '@zero/runtime/store/lease-store';

/** Loads a second copy of a module, as a bundle that carries its own copy of @zero/core would. */
const copyOf = (path: string) => import(/* @vite-ignore */ `${path}?copy`);

describe('error codes and statuses', () => {
  it('gives every code a 4xx or 5xx status, and a ZeroError answers its code\'s status', () => {
    expect(ERROR_CODES.length).toBeGreaterThan(0);
    for (const code of ERROR_CODES) {
      expect(statusOf(code)).toBeGreaterThanOrEqual(400);
      expect(statusOf(code)).toBeLessThan(600);
      expect(new ZeroError(code, 'x').status).toBe(statusOf(code));
    }
  });

  it('keeps the statuses clients rely on', () => {
    expect(Object.fromEntries(ERROR_CODES.map((code) => [code, statusOf(code)]))).toEqual({
      invalid_request: 400,
      invalid_json: 400,
      unauthorized: 401,
      budget_reached: 402,
      forbidden: 403,
      user_suspended: 403,
      not_found: 404,
      agent_not_found: 404,
      session_not_found: 404,
      conflict: 409,
      payload_too_large: 413,
      limit_reached: 413,
      too_many_requests: 429,
      rate_limited: 429,
      internal: 500,
      model_error: 502,
      upstream_error: 502,
      model_not_configured: 503,
    });
  });

  it('builds the common errors with their code, message and field', () => {
    expect(invalidField('user_id', 'must be a user id').toJSON()).toEqual({ error: { code: 'invalid_request', message: 'user_id: must be a user id', field: 'user_id' } });
    expect(notFound('no webhook "h1"', 'hook_id').toJSON()).toEqual({ error: { code: 'not_found', message: 'no webhook "h1"', field: 'hook_id' } });
    expect(notFound('nothing here').toJSON()).toEqual({ error: { code: 'not_found', message: 'nothing here' } });
    expect(forbidden('needs an administrator').status).toBe(403);
    expect(unauthorized('no credential').status).toBe(401);
    expect(conflict('busy', { active_run_id: 'r1' }).toJSON()).toEqual({ error: { code: 'conflict', message: 'busy', active_run_id: 'r1' } });
    expect(tooLarge('too big', 'message').status).toBe(413);
  });
});

describe('recognising errors across package copies', () => {
  it('recognises each error class built by a second copy of its module, where instanceof fails', async () => {
    const cases: [Class: { name: string; isInstance(value: unknown): boolean }, Copy: unknown, args: unknown[]][] = [
      [ZeroError, (await copyOf('../packages/agent/src/errors')).ZeroError, ['not_found', 'gone']],
      [ModelError, (await copyOf('../packages/agent/src/model/provider')).ModelError, ['overloaded', true, 529]],
      [ModelCallAborted, (await copyOf('../packages/agent/src/model/provider')).ModelCallAborted, []],
      [OutboundBlockedError, (await copyOf('../packages/agent/src/net/outbound')).OutboundBlockedError, ['private address']],
      [PathError, (await copyOf('../packages/runtime/src/projects/paths')).PathError, ['the path is empty']],
      [LeaseLostError, (await copyOf('../packages/agent/src/loop/lease-lost')).LeaseLostError, ['taken over']],
    ];
    for (const [Class, Copy, args] of cases) {
      const copied = new (Copy as new (...a: unknown[]) => Error)(...args);
      expect(copied).not.toBeInstanceOf(Class);
      expect(Class.isInstance(copied)).toBe(true);
      expect(copied.name).toBe(Class.name);
    }
  });

  it('tells the classes apart and refuses look-alikes', () => {
    const lookAlike = Object.assign(new Error('gone'), { name: 'ZeroError', code: 'not_found' });
    expect(ZeroError.isInstance(lookAlike)).toBe(false);
    expect(ZeroError.isInstance(new PathError('x'))).toBe(false);
    expect(PathError.isInstance(new ZeroError('not_found', 'x'))).toBe(false);
    expect(ModelError.isInstance(new ModelCallAborted())).toBe(false);
    expect(ZeroError.isInstance(null)).toBe(false);
    expect(ZeroError.isInstance('ZeroError')).toBe(false);
    // An object carrying the marker is one: the marker, not the prototype chain, is the contract.
    expect(LeaseLostError.isInstance({ [Symbol.for('zero.error.LeaseLostError')]: true })).toBe(true);
  });
});
