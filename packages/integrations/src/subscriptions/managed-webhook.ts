import type { SubscriptionEvent } from '@zero/agent/wire';
import type { ZeroEvent } from './publish';

/**
 * Zero has no organizations or workspaces: a Managed Agents webhook names the deployment's one of each
 * (`organization_id` `zero`, `workspace_id` `default`), as fields the SDK's types require.
 */
export const WEBHOOK_ORGANIZATION_ID = 'zero';
export const WEBHOOK_WORKSPACE_ID = 'default';

/** The Managed Agents webhook types a session's events become (`BetaWebhookEventData['type']`). */
export type ManagedWebhookType = 'session.created' | 'session.status_idled' | 'session.requires_action' | 'session.budget_reached';

/** The Zero events a `managed_agents` subscription may ask for: those with a session counterpart in the API. */
export const MANAGED_WEBHOOK_EVENTS: readonly SubscriptionEvent[] = ['session.created', 'run.completed', 'run.failed', 'run.awaiting_approval'];

/**
 * The Managed Agents webhook type of a Zero event: a session created; a run that ended leaves the
 * session idle (`session.status_idled`), unless it stopped at a limit or budget (`session.budget_reached`);
 * a run that waits for a person is `session.requires_action`. Undefined for an investigation's events,
 * which have no counterpart (a `managed_agents` subscription cannot ask for them).
 */
export function managedWebhookType(event: Pick<ZeroEvent, 'type' | 'data'>): ManagedWebhookType | undefined {
  switch (event.type) {
    case 'session.created':
      return 'session.created';
    case 'run.completed':
      return 'session.status_idled';
    case 'run.failed':
      return event.data.status === 'limit' || event.data.status === 'budget_reached' ? 'session.budget_reached' : 'session.status_idled';
    case 'run.awaiting_approval':
      return 'session.requires_action';
    default:
      return undefined;
  }
}

/**
 * A Zero event as the Managed Agents API's webhook (`BetaWebhookEvent`): `id` is the message id (the
 * `webhook-id` header too, so a receiver deduplicates on either), `data.id` the session's id. Nothing
 * else of the session: a receiver reads the rest from `/v1/sessions/:id`.
 */
export function managedWebhookBody(event: Pick<ZeroEvent, 'type' | 'data'>, messageId: string, at: Date) {
  const type = managedWebhookType(event);
  if (!type) return undefined;
  return {
    type: 'event' as const,
    id: messageId,
    created_at: at.toISOString(),
    data: { type, id: event.data.session_id, organization_id: WEBHOOK_ORGANIZATION_ID, workspace_id: WEBHOOK_WORKSPACE_ID },
  };
}
