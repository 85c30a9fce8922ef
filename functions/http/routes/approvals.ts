import { Hono } from 'hono';
import { conflict, decideApprovals, requireAccess, truncate } from '@zero/core';
import { approvalRequestSchema, approvalResponseSchema, toolResultRequestSchema, toolResultResponseSchema } from '@zero/core/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';

/**
 * Answers to tool calls that wait for a person: decisions, and client tools' results. An editor or owner decides;
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
        if (!waiting?.pending.some((p) => p.tool_use_id === toolCallId && !p.client_tool)) throw conflict(`tool call "${toolCallId}" does not wait for a decision`, { tool_call_id: toolCallId });
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

  app.post(
    '/sessions/:id/tool-results/:tool_call_id',
    describe({ summary: 'Answer a client tool call the run waits for (editors and owners)', responses: { 200: toolResultResponseSchema } }),
    json(toolResultRequestSchema),
    async (c) => {
      const id = c.req.param('id');
      const toolCallId = c.req.param('tool_call_id');
      const user = c.get('user');
      const body = c.req.valid('json');
      await requireAccess(deps.sessions, id, user, 'editor');
      const by = { id: user.id, ...(user.name ? { name: user.name } : {}) };
      // Bounded like the output of any tool: cut at the run's limit, with a notice the model reads.
      const result = truncate({ content: body.content, is_error: !!body.is_error }, deps.limits.maxToolOutputChars);
      const { recorded, pending } = await decideApprovals(deps, id, (waiting) => {
        // Answered already, called by an older run, never called, or a call that waits for a decision instead.
        if (!waiting?.pending.some((p) => p.tool_use_id === toolCallId && p.client_tool)) throw conflict(`tool call "${toolCallId}" does not wait for a client's result`, { tool_call_id: toolCallId });
        return [{ toolCallId, decision: 'allow' as const, by, result: { content: result.content, ...(result.is_error ? { is_error: true } : {}), ...(result.truncated ? { truncated: true } : {}) } }];
      });
      const record = recorded[0]!;
      return c.json({ tool_call_id: toolCallId, run_id: record.run_id, is_error: result.is_error, truncated: result.truncated, ...(record.by ? { by: record.by } : {}), at: record.at, pending });
    },
  );

  return app;
}
