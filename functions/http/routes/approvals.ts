import { Hono } from 'hono';
import { conflict, decideApprovals, requireAccess } from '@zero/core';
import { approvalRequestSchema, approvalResponseSchema } from '@zero/core/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';

/**
 * Decisions on tool calls that wait for a person. An editor or owner decides;
 * the decision is recorded (who, when) and streamed to every member as an
 * `approval` event; the last decision of a step sends the run on.
 */
export function approvalRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  app.post(
    '/sessions/:id/approvals/:tool_call_id',
    describe({ summary: 'Decide a tool call that waits for approval (editors and owners)', responses: { 200: approvalResponseSchema } }),
    json(approvalRequestSchema),
    async (c) => {
      const id = c.req.param('id');
      const toolCallId = c.req.param('tool_call_id');
      const user = c.get('user');
      const body = c.req.valid('json');
      await requireAccess(deps.sessions, id, user, 'editor');
      const by = { id: user.id, ...(user.name ? { name: user.name } : {}) };
      const { recorded, pending } = await decideApprovals(deps, id, (waiting) => {
        // Decided already, asked by an older run, or never asked: nothing changes.
        if (!waiting?.pending.some((p) => p.tool_use_id === toolCallId)) throw conflict(`tool call "${toolCallId}" does not wait for a decision`, { tool_call_id: toolCallId });
        return [{ toolCallId, decision: body.decision, ...(body.message ? { message: body.message } : {}), by }];
      });
      const record = recorded[0]!;
      return c.json({
        tool_call_id: toolCallId,
        run_id: record.run_id,
        decision: record.decision,
        ...(record.message ? { message: record.message } : {}),
        ...(record.by ? { by: record.by } : {}),
        at: record.at,
        pending,
      });
    },
  );

  return app;
}
