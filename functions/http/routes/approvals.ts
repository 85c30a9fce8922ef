import { Hono, type Context } from 'hono';
import { conflict } from '@zero/agent/errors';
import { decideApprovals, type Decision } from '@zero/runtime/sessions/decide-approval';
import { requireAccess } from '@zero/runtime/sessions/access';
import { refuseMemberAnswer, selfHostedEnvironmentOf } from '@zero/runtime/sessions/session-environment';
import { truncate } from '@zero/agent/tools/registry';
import { approvalRequestSchema, approvalResponseSchema, toolResultRequestSchema, toolResultResponseSchema } from '@zero/agent/wire';
import { describe, json } from '../declare';
import type { AppDeps, Env } from '../env';

/**
 * Answers to tool calls that wait for a person: decisions, and client tools' results. An editor or owner decides;
 * the decision is recorded (who, when) and streamed to every member as an
 * `approval` event; the last decision of a step sends the run on.
 */
export function approvalRoutes(deps: AppDeps) {
  const app = new Hono<Env>();

  /**
   * Records one member's answer to a call of the session's waiting run. `kind` says which calls it may
   * answer; a call that does not wait for this kind of answer (answered already, from an older run,
   * never made) is a 409 and nothing changes. The last answer of a step sends the run on.
   */
  const answer = async (c: Context<Env>, kind: 'decision' | 'result', make: () => Omit<Decision, 'toolCallId' | 'by'>, remember = false) => {
    const id = c.req.param('id')!;
    const toolCallId = c.req.param('tool_call_id')!;
    const user = c.get('user');
    // Remembering a decision sets a session override, which only an owner may (as with PUT …/permissions).
    await requireAccess(deps.sessions, id, user, remember ? 'owner' : 'editor');
    const by = { id: user.id, ...(user.name ? { name: user.name } : {}) };
    // A self-hosted environment's calls are its worker's to answer, whatever the door.
    const environment = kind === 'result' ? await selfHostedEnvironmentOf(deps, id) : undefined;
    let tool = '';
    const { recorded, pending } = await decideApprovals(
      deps,
      id,
      (waiting) => {
        const call = waiting?.pending.find((p) => p.tool_use_id === toolCallId && !!p.client_tool === (kind === 'result'));
        if (!call) {
          throw conflict(`tool call "${toolCallId}" does not wait for ${kind === 'result' ? "a client's result" : 'a decision'}`, { tool_call_id: toolCallId });
        }
        refuseMemberAnswer(environment, call);
        tool = call.name;
        // "Always for this session" also answers the step's other waiting calls of the same tool.
        const same = remember ? waiting!.pending.filter((p) => p !== call && p.name === call.name && !p.client_tool) : [];
        return [call, ...same].map((p) => ({ toolCallId: p.tool_use_id, by, ...make() }));
      },
      remember ? (recorded) => rememberForSession(id, tool, recorded[0]!.decision, user.id) : undefined,
    );
    return { toolCallId, record: recorded[0]!, also: recorded.slice(1).map((r) => r.tool_use_id), tool, pending };
  };

  /** Adds `tool: decision` to the session's overrides, so its later calls are decided without asking. */
  const rememberForSession = async (id: string, tool: string, decision: 'allow' | 'deny', userId: string) => {
    const current = (await deps.sessions.getPermissions(id))?.permissions ?? {};
    await deps.sessions.putPermissions(id, { permissions: { ...current, [tool]: decision }, updated_by: userId, updated_at: new Date().toISOString() });
  };

  app.post(
    '/sessions/:id/approvals/:tool_call_id',
    describe({ summary: 'Decide a tool call that waits for approval (editors and owners)', responses: { 200: approvalResponseSchema } }),
    json(approvalRequestSchema),
    async (c) => {
      const body = c.req.valid('json');
      const remember = body.remember === 'session';
      const { toolCallId, record, also, tool, pending } = await answer(c, 'decision', () => ({ decision: body.decision, ...(body.message ? { message: body.message } : {}) }), remember);
      return c.json({
        tool_call_id: toolCallId,
        run_id: record.run_id,
        decision: record.decision,
        ...(record.message ? { message: record.message } : {}),
        ...(record.by ? { by: record.by } : {}),
        at: record.at,
        ...(remember ? { remembered: { rule: tool, decision: record.decision, also_decided: also } } : {}),
        pending,
      });
    },
  );

  app.post(
    '/sessions/:id/tool-results/:tool_call_id',
    describe({ summary: 'Answer a client tool call the run waits for (editors and owners)', responses: { 200: toolResultResponseSchema } }),
    json(toolResultRequestSchema),
    async (c) => {
      const body = c.req.valid('json');
      // Bounded like the output of any tool: cut at the run's limit, with a notice the model reads.
      const result = truncate({ content: body.content, is_error: !!body.is_error }, deps.limits.maxToolOutputChars);
      const { toolCallId, record, pending } = await answer(c, 'result', () => ({
        decision: 'allow' as const,
        result: { content: result.content, ...(result.is_error ? { is_error: true } : {}), ...(result.truncated ? { truncated: true } : {}) },
      }));
      return c.json({ tool_call_id: toolCallId, run_id: record.run_id, is_error: result.is_error, truncated: result.truncated, ...(record.by ? { by: record.by } : {}), at: record.at, pending });
    },
  );

  return app;
}
