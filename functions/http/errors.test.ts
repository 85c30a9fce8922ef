import { Hono } from 'hono';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, ZeroError, statusOf } from '@zero/agent/errors';
import { errorResponse } from './errors';

describe('the HTTP edge', () => {
  it('answers each error code with its status from the table and the code in the body', async () => {
    const app = new Hono();
    app.get('/:code', (c) => {
      throw new ZeroError(c.req.param('code') as ZeroError['code'], 'refused', { field: 'x' });
    });
    app.onError((error, c) => errorResponse(error, c));
    for (const code of ERROR_CODES) {
      const res = await app.request(`/${code}`);
      expect(res.status).toBe(statusOf(code));
      expect(await res.json()).toEqual({ error: { code, message: 'refused', field: 'x' } });
    }
  });
});
